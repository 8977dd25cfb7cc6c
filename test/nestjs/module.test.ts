import {
  BadRequestException,
  Catch,
  Controller,
  Get,
  HttpException,
  Inject,
  Injectable,
  Module,
  Req,
  UseFilters,
  UseGuards,
  type ArgumentsHost,
  type ExceptionFilter,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common'
import { APP_GUARD, Reflector } from '@nestjs/core'
import type { NestExpressApplication } from '@nestjs/platform-express'
import type { NestFastifyApplication } from '@nestjs/platform-fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { PasscodeAuth } from '../../src/index'
import {
  PASSCODE_AUTH,
  PasscodeAuthGuard,
  PasscodeAuthModule,
  PasscodePrincipal,
  PasscodeRefusedException,
  PasscodeRefusedFilter,
  RequireScopes,
  type Principal,
} from '../../src/nestjs/index'
import { requiredScopes } from '../../src/nestjs/scopes-metadata'
import type { RunningApp } from '../conformance/http'
import { createHttpFixture, type HttpFixture } from '../http/fixture'
import { EventsController, listenNest, nestApp, type NestPlatform } from './targets'

/**
 * What passcode-auth/nestjs adds to the conformance suite (test/nestjs/conformance.test.ts):
 * the guard applied more than once, the host's exception filters and JSON settings,
 * the module's options, the connect route's place, on both of Nest's HTTP platforms.
 */

const INVALID = '{"status":"fail","error":"Invalid Credentials","code":400}'

let fixture: HttpFixture
beforeAll(async () => {
  fixture = await createHttpFixture()
})
afterAll(() => fixture?.close())

const valid = () => ({ 'x-service-account-id': fixture.accountId, 'x-service-passcode': fixture.passcodes.active })
const wrong = () => ({ 'x-service-account-id': fixture.accountId, 'x-service-passcode': fixture.passcodes.unknown })

// Each application is served once (Fastify cannot listen again once closed), and closed after its test.
const serving = new Map<INestApplication, Promise<RunningApp>>()
afterEach(async () => {
  await Promise.all([...serving.values()].map(async (running) => (await running).close()))
  serving.clear()
})

/** Sends one request to `app` (served on first use): the status, the body's text and the headers. */
async function call(app: INestApplication, path: string, init: RequestInit = {}) {
  let running = serving.get(app)
  if (running === undefined) serving.set(app, (running = listenNest(app)))
  const response = await fetch(`http://127.0.0.1:${(await running).port}${path}`, init)
  return { status: response.status, body: await response.text(), headers: response.headers }
}

/** `auth`, counting the verifications adapters ask it for. */
function counting(auth: PasscodeAuth): { auth: PasscodeAuth; readonly calls: number } {
  let calls = 0
  const counted: PasscodeAuth = {
    ...auth,
    verifyRequest: (request, reader) => {
      calls++
      return auth.verifyRequest(request, reader)
    },
  }
  return {
    auth: counted,
    get calls() {
      return calls
    },
  }
}

@Controller('1')
@UseGuards(PasscodeAuthGuard)
class TwiceGuardedController {
  @Get('events.json')
  @UseGuards(PasscodeAuthGuard)
  events(@PasscodePrincipal() principal: Principal): Principal {
    return principal
  }
}

@Controller('open')
class UnguardedController {
  @Get()
  open(@PasscodePrincipal() principal: Principal): Principal {
    return principal
  }
}

describe.each(['express', 'fastify'] as const)('passcode-auth/nestjs on platform-%s', (platform: NestPlatform) => {
  it('verifies a request once when the guard is applied globally, on the controller and on the handler', async () => {
    const counted = counting(fixture.auth)
    const app = await nestApp(
      platform,
      { auth: counted.auth },
      {
        controllers: [TwiceGuardedController],
        providers: [{ provide: APP_GUARD, useClass: PasscodeAuthGuard }],
      },
    )
    const answer = await call(app, '/1/events.json', { headers: valid() })
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, fixture.principals.account])
    expect(counted.calls).toBe(1)
    const refused = await call(app, '/1/events.json', { headers: wrong() })
    expect([refused.status, refused.body]).toEqual([400, INVALID])
    expect(counted.calls).toBe(2)
  })

  it('puts who called on request.passcodeAuth too, as the Express and Fastify adapters do', async () => {
    @Controller()
    class RequestController {
      @Get('who')
      @UseGuards(PasscodeAuthGuard)
      who(@Req() request: { passcodeAuth?: Principal }): Principal | undefined {
        return request.passcodeAuth
      }
    }
    const app = await nestApp(platform, { auth: fixture.auth }, { controllers: [RequestController] })
    const answer = await call(app, '/who', { headers: valid() })
    expect(JSON.parse(answer.body)).toEqual(fixture.principals.account)
  })

  it("answers refusals with the exact bytes whatever JSON settings the host gave the platform (the host's own answers follow them)", async () => {
    const app = await nestApp(
      platform,
      { auth: fixture.auth },
      {
        configure: (nest) => {
          if (platform === 'express') (nest as NestExpressApplication).set('json spaces', 2)
          else
            (nest as NestFastifyApplication)
              .getHttpAdapter()
              .getInstance()
              .setReplySerializer((payload) => JSON.stringify(payload, null, 2))
        },
      },
    )
    const accepted = await call(app, '/1/events.json', { headers: valid() })
    expect(accepted.body).toBe(JSON.stringify(fixture.principals.account, null, 2))
    const refused = await call(app, '/1/events.json', { headers: wrong() })
    expect([refused.status, refused.body, refused.headers.get('cache-control')]).toEqual([400, INVALID, 'no-store'])
  })

  it("hands the refusal to a host's catch-all filter as a PasscodeRefusedException: the status, the exact body and headers; the reason stays out of its JSON", async () => {
    const caught: unknown[] = []
    @Catch()
    class CatchAll implements ExceptionFilter {
      catch(exception: unknown, host: ArgumentsHost) {
        caught.push(exception)
        const status = exception instanceof HttpException ? exception.getStatus() : 500
        const response = host
          .switchToHttp()
          .getResponse<{ raw?: unknown; statusCode: number; end(body: string): void; code?(status: number): { send(body: string): void } }>()
        const body = JSON.stringify({ host: 'filter', status })
        if (response.raw !== undefined) response.code!(status).send(body)
        else {
          response.statusCode = status
          response.end(body)
        }
      }
    }
    const app = await nestApp(platform, { auth: fixture.auth }, { configure: (nest) => nest.useGlobalFilters(new CatchAll()) })
    const refused = await call(app, '/1/events.json', { headers: wrong() })
    expect([refused.status, refused.body]).toEqual([400, '{"host":"filter","status":400}'])
    const [exception] = caught as [PasscodeRefusedException]
    expect(exception).toBeInstanceOf(PasscodeRefusedException)
    expect(exception).toBeInstanceOf(HttpException)
    expect(JSON.stringify(exception.getResponse())).toBe(INVALID)
    expect(exception.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
    expect([exception.name, exception.message, exception.reason]).toEqual(['PasscodeRefusedException', 'Invalid Credentials', 'unknown_passcode'])
    expect(JSON.stringify(exception)).not.toContain('unknown_passcode')
  })

  it("answers byte for byte with @UseFilters(PasscodeRefusedFilter) on the controller, before the host's catch-all filter", async () => {
    @Catch()
    class CatchAll implements ExceptionFilter {
      catch(): void {
        throw new Error('the controller filter should have answered')
      }
    }
    @Controller('1')
    @UseFilters(PasscodeRefusedFilter)
    class FilteredController extends EventsController {}
    const app = await nestApp(
      platform,
      { auth: fixture.auth },
      {
        controllers: [FilteredController],
        configure: (nest) => nest.useGlobalFilters(new CatchAll()),
      },
    )
    const refused = await call(app, '/1/events.json', { headers: wrong() })
    expect([refused.status, refused.body, refused.headers.get('cache-control')]).toEqual([400, INVALID, 'no-store'])
  })

  it('leaves /v1/connect to the host with connectRoute: false', async () => {
    const app = await nestApp(platform, { auth: fixture.auth, connectRoute: false })
    const answer = await call(app, '/v1/connect?partner=acme', { headers: valid() })
    expect(answer.status).toBe(404)
    expect(answer.body).not.toContain('Authorised')
  })

  it("answers /v1/connect under the application's global prefix", async () => {
    const app = await nestApp(platform, { auth: fixture.auth }, { configure: (nest) => nest.setGlobalPrefix('api') })
    const answer = await call(app, '/api/v1/connect?partner=acme', { headers: valid() })
    expect([answer.status, answer.body]).toEqual([200, '{"status":"success","message":"Authorised Successfully."}'])
    expect((await call(app, '/v1/connect?partner=acme', { headers: valid() })).status).toBe(404)
  })

  it('answers a @PasscodePrincipal() on a route the guard does not guard with a 500, never with no principal', async () => {
    const app = await nestApp(platform, { auth: fixture.auth }, { controllers: [UnguardedController] })
    const answer = await call(app, '/open', { headers: valid() })
    expect([answer.status, answer.body]).toEqual([500, '{"statusCode":500,"message":"Internal server error"}'])
  })

  it('makes its options with forRootAsync, from injected providers, and gives the service as PASSCODE_AUTH', async () => {
    @Injectable()
    class AuthConfig {
      readonly auth = fixture.auth
    }
    @Module({ providers: [AuthConfig], exports: [AuthConfig] })
    class ConfigModule {}
    @Injectable()
    class Passcodes {
      constructor(@Inject(PASSCODE_AUTH) readonly auth: PasscodeAuth) {}
    }
    const app = await nestApp(platform, undefined, {
      imports: [
        PasscodeAuthModule.forRootAsync({
          imports: [ConfigModule],
          inject: [AuthConfig],
          useFactory: async (config: AuthConfig) => ({ auth: config.auth, cors: { origins: ['https://dashboard.partner.example'] } }),
        }),
      ],
      providers: [Passcodes],
    })
    expect(app.get(Passcodes).auth).toBe(fixture.auth)
    const answer = await call(app, '/v1/connect?partner=acme', { headers: { ...valid(), origin: 'https://dashboard.partner.example' } })
    expect([answer.status, answer.headers.get('access-control-allow-origin')]).toEqual([200, 'https://dashboard.partner.example'])
    expect((await call(app, '/1/events.json', { headers: valid() })).status).toBe(200)
  })

  it("fails the application's start when forRootAsync's factory returns bad options", async () => {
    const start = nestApp(platform, undefined, {
      imports: [PasscodeAuthModule.forRootAsync({ useFactory: () => ({ auth: fixture.auth, connectRoute: 'yes' as unknown as boolean }) })],
    })
    await expect(start).rejects.toThrow(expect.objectContaining({ name: 'InvalidOptionsError', message: expect.stringContaining('connectRoute') }))
  })
})

describe('passcode-auth/nestjs on platform-express, a POST to /v1/connect with a malformed JSON body', () => {
  const malformed = () => ({ method: 'POST', headers: { ...valid(), 'content-type': 'application/json' }, body: '{x' })
  it("gets Nest's JSON parser's 400 by default: Nest parses bodies before any middleware runs (docs/nestjs.md)", async () => {
    const app = await nestApp('express', { auth: fixture.auth })
    const answer = await call(app, '/v1/connect', malformed())
    expect(answer.status).toBe(400)
    expect(answer.body).not.toContain('Method Not Allowed')
  })
  it('gets the 405 with bodyParser: false', async () => {
    const app = await nestApp('express', { auth: fixture.auth }, { application: { bodyParser: false } })
    const answer = await call(app, '/v1/connect', malformed())
    expect([answer.status, answer.body]).toEqual([405, '{"status":"fail","error":"Method Not Allowed","code":405}'])
  })
})

describe('PasscodeAuthModule.forRoot', () => {
  it.each([
    ['no options', undefined, 'options'],
    ['no auth', {}, 'auth'],
    ['auth that is not the service', { auth: { verifyRequest: () => undefined } }, 'auth'],
    ['an unknown option', { auth: 'later', onRefusal: 'next' }, 'onRefusal'],
    ['connectRoute not a boolean', { connectRoute: 'no' }, 'connectRoute'],
  ])('refuses %s with an InvalidOptionsError naming it', (_, options, field) => {
    const withAuth = options !== undefined && (options as { auth?: unknown }).auth === 'later' ? { ...options, auth: fixture.auth } : options
    expect(() => PasscodeAuthModule.forRoot(withAuth as never)).toThrow(expect.objectContaining({ name: 'InvalidOptionsError', option: field }))
  })
  it('refuses bad CORS origins when the connect route is made, at start', async () => {
    await expect(nestApp('express', { auth: fixture.auth, cors: { origins: ['https://partner.example/path'] } })).rejects.toThrow(
      expect.objectContaining({ name: 'InvalidOptionsError' }),
    )
  })
})

describe('PasscodeAuthGuard', () => {
  it('guards HTTP handlers only: another context is a ConfigurationError', () => {
    const guard = new PasscodeAuthGuard(fixture.auth, { get: () => undefined } as never)
    const context = { getType: () => 'rpc', getClass: () => Object, getHandler: () => () => undefined }
    expect(() => guard.canActivate(context as never)).toThrow(expect.objectContaining({ name: 'ConfigurationError' }))
  })
  it('is an HTTP exception of Nest for BadRequestException-minded filters too', () => {
    const exception = new PasscodeRefusedException({
      ok: false,
      reason: 'rate_limited',
      statusCode: 429,
      body: { status: 'fail', error: 'Too Many Requests', code: 429 },
      headers: { 'retry-after': '60' },
    })
    expect(exception).not.toBeInstanceOf(BadRequestException)
    expect([exception.getStatus(), exception.headers['retry-after'], exception.headers['cache-control']]).toEqual([429, '60', 'no-store'])
  })
})

describe('@RequireScopes', () => {
  @Controller('scoped')
  @RequireScopes('events:read', 'profiles.read')
  class ScopedController {
    @Get('both')
    @RequireScopes('events:write', 'events:read')
    both(): string {
      return 'both'
    }

    @Get('class')
    ofClass(): string {
      return 'class'
    }
  }

  class HandlerOnly {
    @RequireScopes('a_b-c.d:e')
    only(): string {
      return 'only'
    }

    none(): string {
      return 'none'
    }
  }

  const contextOf = (type: abstract new (...args: never[]) => unknown, handler: string) =>
    ({
      getType: () => 'http',
      getClass: () => type,
      getHandler: () => (type.prototype as Record<string, unknown>)[handler],
    }) as unknown as ExecutionContext

  it("keeps the route's scopes: its controller's, then its handler's own, each once, in that order (SPEC 5.48: the first missing, in the route's order)", () => {
    const reflector = new Reflector()
    expect(requiredScopes(reflector, contextOf(ScopedController, 'both'))).toEqual(['events:read', 'profiles.read', 'events:write'])
    expect(requiredScopes(reflector, contextOf(ScopedController, 'ofClass'))).toEqual(['events:read', 'profiles.read'])
    expect(requiredScopes(reflector, contextOf(HandlerOnly, 'only'))).toEqual(['a_b-c.d:e'])
    expect(requiredScopes(reflector, contextOf(HandlerOnly, 'none'))).toEqual([])
  })

  it('refuses a name SPEC 5.48 does not allow when the class is decorated, naming which one', () => {
    for (const [scopes, option] of [
      [['Events'], 'scopes[0]'],
      [['events:read', 'events read'], 'scopes[1]'],
      [[''], 'scopes[0]'],
      [['1events'], 'scopes[0]'],
      [[`a${'b'.repeat(64)}`], 'scopes[0]'],
      [[42], 'scopes[0]'],
    ] as const) {
      expect(() => RequireScopes(...(scopes as readonly string[])), JSON.stringify(scopes)).toThrow(
        expect.objectContaining({ name: 'InvalidOptionsError', option }),
      )
    }
    expect(() => RequireScopes(`a${'b'.repeat(63)}`, 'x')).not.toThrow()
  })

  it('applies the guard itself: credentials first, then, as the service checks no scope yet, nobody through (a ConfigurationError naming them)', async () => {
    const errors: unknown[] = []
    @Catch()
    class Recorder implements ExceptionFilter {
      readonly #refusals = new PasscodeRefusedFilter()
      catch(exception: unknown, host: ArgumentsHost): void {
        if (exception instanceof PasscodeRefusedException) return this.#refusals.catch(exception, host)
        errors.push(exception)
        host.switchToHttp().getResponse<{ status(code: number): { end(): void } }>().status(500).end()
      }
    }
    const app = await nestApp(
      'express',
      { auth: fixture.auth },
      { controllers: [ScopedController], configure: (nest) => nest.useGlobalFilters(new Recorder()) },
    )
    const refused = await call(app, '/scoped/both', { headers: wrong() })
    expect([refused.status, refused.body]).toEqual([400, INVALID])
    expect((await call(app, '/scoped/both')).status).toBe(400)
    expect(errors).toEqual([])
    expect((await call(app, '/scoped/both', { headers: valid() })).status).toBe(500)
    expect(errors).toEqual([
      expect.objectContaining({ name: 'ConfigurationError', message: expect.stringContaining('(events:read, profiles.read, events:write)') }),
    ])
  })
})
