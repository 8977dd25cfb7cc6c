import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter, type INestApplication } from '@nestjs/common'
import { BaseExceptionFilter } from '@nestjs/core'
import { PasscodeRefusedException, PasscodeRefusedFilter } from '../../src/nestjs/index'
import { describeHostileInput, type Target } from '../http/hostile-input'
import { listenNest, nestApp, type NestPlatform } from './targets'

/**
 * Every exception of the application reaches this filter first (`useGlobalFilters`
 * goes before the module's own): refusals go on to the module's filter, Nest's own 4xx
 * (a route not found) to Nest's default one, and anything else is recorded as a
 * failure and answered 500.
 */
function recordingFilter(app: INestApplication, errors: unknown[]): ExceptionFilter {
  const refusals = new PasscodeRefusedFilter()
  const nest = new BaseExceptionFilter(app.getHttpAdapter())
  @Catch()
  class Recorder implements ExceptionFilter {
    catch(exception: unknown, host: ArgumentsHost): void {
      if (exception instanceof PasscodeRefusedException) return refusals.catch(exception, host)
      if (exception instanceof HttpException && exception.getStatus() < 500) return nest.catch(exception, host)
      errors.push(exception)
      nest.catch(exception, host)
    }
  }
  return new Recorder()
}

const nestTarget = (platform: NestPlatform): Target => ({
  name: `nestjs (platform-${platform})`,
  // Fewer cases than the frameworks' own: the requests reach the same Express and Fastify.
  current: false,
  start: async (auth, errors) =>
    listenNest(await nestApp(platform, { auth }, { configure: (app) => app.useGlobalFilters(recordingFilter(app, errors)) })),
})

// The hostile-input suite (test/http/hostile-input.ts) through passcode-auth/nestjs on Nest's two HTTP platforms.
describeHostileInput('NestJS', [nestTarget('express'), nestTarget('fastify')])
