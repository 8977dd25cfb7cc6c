import type { AddressInfo } from 'node:net'
import {
  Controller,
  Get,
  Module,
  UseGuards,
  type INestApplication,
  type ModuleMetadata,
  type NestApplicationOptions,
  type Provider,
} from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { ExpressAdapter } from '@nestjs/platform-express'
import { FastifyAdapter } from '@nestjs/platform-fastify'
import type { CorsOptions, PasscodeAuth } from '../../src/index'
import { PasscodeAuthGuard, PasscodeAuthModule, PasscodePrincipal, type PasscodeAuthModuleOptions, type Principal } from '../../src/nestjs/index'
import type { HttpTarget, RunningApp } from '../conformance/http'

/** The suite's protected example route. */
@Controller('1')
export class EventsController {
  @Get('events.json')
  @UseGuards(PasscodeAuthGuard)
  events(@PasscodePrincipal() principal: Principal): Principal {
    return principal
  }
}

/** Which of Nest's two HTTP platforms an app runs on. */
export type NestPlatform = 'express' | 'fastify'

const adapterOf = (platform: NestPlatform) => (platform === 'express' ? new ExpressAdapter() : new FastifyAdapter())

/** What {@link nestApp} builds beside the module. */
export interface NestAppSetup {
  /** The application's controllers. @default [EventsController] */
  readonly controllers?: readonly (new (...args: never[]) => unknown)[]
  /** The application's own providers (an `APP_GUARD`, say). */
  readonly providers?: readonly Provider[]
  /** The module itself, when not `PasscodeAuthModule.forRoot(options)` (`forRootAsync`). */
  readonly imports?: ModuleMetadata['imports']
  /** Options of `NestFactory.create`. @default { logger: false } */
  readonly application?: NestApplicationOptions
  /** Runs before `init()`: global prefix, filters, platform settings. */
  readonly configure?: (app: INestApplication) => void
}

/**
 * A Nest application on `platform` with `PasscodeAuthModule.forRoot(options)` and the
 * given controllers (the suite's `GET /1/events.json` by default), initialised, not
 * listening. Nest's logger is off unless `application` says otherwise.
 */
export async function nestApp(
  platform: NestPlatform,
  options: PasscodeAuthModuleOptions | undefined,
  setup: NestAppSetup = {},
): Promise<INestApplication> {
  const imports = setup.imports ?? [PasscodeAuthModule.forRoot(options!)]
  @Module({ imports: [...imports], controllers: [...(setup.controllers ?? [EventsController])], providers: [...(setup.providers ?? [])] })
  class AppModule {}
  const app = await NestFactory.create(AppModule, adapterOf(platform), { logger: false, abortOnError: false, ...setup.application })
  setup.configure?.(app)
  await app.init()
  return app
}

/** Starts a Nest application on 127.0.0.1, port 0. */
export async function listenNest(app: INestApplication): Promise<RunningApp> {
  await app.listen(0, '127.0.0.1')
  return { port: (app.getHttpServer().address() as AddressInfo).port, close: () => app.close() }
}

const start = (platform: NestPlatform) => async (auth: PasscodeAuth, options?: { readonly cors?: CorsOptions }) =>
  listenNest(await nestApp(platform, { auth, ...options }))

/** passcode-auth/nestjs on both of Nest's HTTP platforms, over a real socket. */
export const NEST_TARGETS: readonly HttpTarget[] = [
  { name: 'nestjs (platform-express)', start: start('express') },
  { name: 'nestjs (platform-fastify)', start: start('fastify') },
]
