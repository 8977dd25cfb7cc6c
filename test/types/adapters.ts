/**
 * Type tests: compiled by `tsc -p .` (and by test/types/type-tests.test.ts), never run.
 * They show the principal's type where each framework exposes it, and that wrong uses
 * do not compile (each `@ts-expect-error` fails the build if its line ever compiles).
 */
import express from 'express'
import fastify from 'fastify'
import Koa from 'koa'
import { expectTypeOf } from 'vitest'
import type { NodeConnectHandlerOptions, NodeConnectOptions, PasscodeAuth, Principal } from 'passcode-auth'
import type { NodeDashboardMountOptions, NodeDashboardOptions } from 'passcode-auth/dashboard'
import { connectHandler, PasscodeRefusedError, requirePasscode as expressRequirePasscode } from 'passcode-auth/express'
import type * as expressEntry from 'passcode-auth/express'
import { passcodeAuthPlugin } from 'passcode-auth/fastify'
import type * as fastifyEntry from 'passcode-auth/fastify'
import { connectHandler as koaConnectHandler, connectMiddleware, requirePasscode as koaRequirePasscode } from 'passcode-auth/koa'
import type * as koaEntry from 'passcode-auth/koa'
import { Hono } from 'hono'
import { connectHandler as fetchConnectHandler, requirePasscode as fetchRequirePasscode, type PasscodeCheck } from 'passcode-auth/fetch'
import type * as fetchEntry from 'passcode-auth/fetch'
import { connectHandler as honoConnectHandler, dashboard as honoDashboard, requirePasscode as honoRequirePasscode } from 'passcode-auth/hono'
import type * as honoEntry from 'passcode-auth/hono'

declare const auth: PasscodeAuth
declare function sessionOf(cookie: string | undefined): { accountId: string; actor: { userId: string; role: 'admin' | 'member' } } | undefined

export function expressTypes(): void {
  const app = express()
  app.get('/v1/connect', connectHandler(auth))
  app.get('/1/events.json', expressRequirePasscode(auth), (req, res) => {
    expectTypeOf(req.passcodeAuth).toEqualTypeOf<Principal | undefined>()
    const principal = req.passcodeAuth
    if (principal?.kind === 'account') expectTypeOf(principal.passcodeName).toBeString()
    if (principal?.kind === 'user') expectTypeOf(principal.userId).toBeString()
    // @ts-expect-error userId exists only on user principals
    void principal?.userId
    // @ts-expect-error absent on requests that did not pass requirePasscode
    void req.passcodeAuth.accountId
    res.json(principal)
  })
  app.use(expressRequirePasscode(auth, { onRefusal: 'next' }))
  app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (error instanceof PasscodeRefusedError) {
      expectTypeOf(error.statusCode).toBeNumber()
      expectTypeOf(error.body).toEqualTypeOf<{ readonly status: 'fail'; readonly error: string; readonly code: number }>()
      res.status(error.statusCode).set(error.headers).send(error.body)
      return
    }
    next(error)
  })
  // @ts-expect-error onRefusal is 'respond' or 'next'
  expressRequirePasscode(auth, { onRefusal: 'throw' })
  // @ts-expect-error unknown option
  expressRequirePasscode(auth, { onRefuse: 'next' })
  // @ts-expect-error auth is required
  connectHandler()
}

export async function fastifyTypes(): Promise<void> {
  const app = fastify()
  await app.register(passcodeAuthPlugin, { auth })
  await app.register(passcodeAuthPlugin, { auth, connectRoute: false })
  // @ts-expect-error auth is required
  await app.register(passcodeAuthPlugin, { connectRoute: false })
  // @ts-expect-error connectRoute is a boolean
  await app.register(passcodeAuthPlugin, { auth, connectRoute: 'no' })

  app.get('/1/events.json', { onRequest: app.requirePasscode }, async (request) => {
    expectTypeOf(request.passcodeAuth).toEqualTypeOf<Principal | null>()
    // @ts-expect-error null until requirePasscode has let the request through
    void request.passcodeAuth.accountId
    return request.passcodeAuth
  })
  app.get<{ Querystring: { since?: string } }>('/1/typed.json', { preHandler: app.requirePasscode }, async (request) => {
    expectTypeOf(request.query.since).toEqualTypeOf<string | undefined>()
    return request.passcodeAuth?.accountId
  })
  app.addHook('onRequest', app.requirePasscode)
  app.addHook('preHandler', app.requirePasscode)
  await app.register(async (scoped) => {
    scoped.addHook('onRequest', scoped.requirePasscode)
  })
}

export function koaTypes(): void {
  const app = new Koa()
  const connect = koaConnectHandler(auth, { cors: { origins: ['https://dashboard.partner.example'] } })
  app.use((ctx, next) => (ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
  app.use(koaRequirePasscode(auth))
  app.use(koaRequirePasscode(auth, { onRefusal: 'next' }))
  // @ts-expect-error onRefusal is 'respond' or 'next'
  koaRequirePasscode(auth, { onRefusal: 'throw' })
  // @ts-expect-error unknown option
  koaRequirePasscode(auth, { onRefuse: 'next' })
  app.use((ctx) => {
    expectTypeOf(ctx.state.passcodeAuth).toEqualTypeOf<Principal | undefined>()
    ctx.body = { calledBy: ctx.state.passcodeAuth?.accountId }
    // @ts-expect-error the state property is a Principal, not a string
    const wrong: string = ctx.state.passcodeAuth
    void wrong
  })
  // @ts-expect-error auth is required
  koaRequirePasscode()
}

export function honoTypes(): void {
  const app = new Hono()
  app.all('/v1/connect', honoConnectHandler(auth))
  app.get('/1/events.json', honoRequirePasscode(auth), (c) => {
    // Set by requirePasscode: typed through Hono's ContextVariableMap.
    expectTypeOf(c.var.passcodeAuth).toEqualTypeOf<Principal>()
    expectTypeOf(c.get('passcodeAuth')).toEqualTypeOf<Principal>()
    // @ts-expect-error userId exists only on user principals
    void c.var.passcodeAuth.userId
    return c.json(c.var.passcodeAuth)
  })
  // @ts-expect-error the option is a function of the context
  honoRequirePasscode(auth, { clientAddress: '10.0.0.1' })
  app.use(honoRequirePasscode(auth, { onRefusal: 'next', clientAddress: (c) => c.req.header('x-real-ip') }))
  app.onError((error, c) => (error instanceof PasscodeRefusedError ? error.getResponse() : c.text('error', 500)))
  // @ts-expect-error connect needs no onRefusal: a refusal is its answer
  honoConnectHandler(auth, { onRefusal: 'next' })
  app.use(honoDashboard(auth, { basePath: '/settings', session: (c) => sessionOf(c.req.header('cookie')) }))
  // @ts-expect-error basePath is required: Hono gives a middleware no mount point
  honoDashboard(auth, { session: () => undefined })
}

export async function fetchTypes(request: Request): Promise<Response> {
  fetchRequirePasscode(auth, {})
  // @ts-expect-error no option yet
  fetchRequirePasscode(auth, { onRefusal: 'next' })
  const connect = fetchConnectHandler(auth)
  if (new URL(request.url).pathname === '/v1/connect') return connect(request, '10.0.0.1')
  const check = await fetchRequirePasscode(auth)(request)
  expectTypeOf(check).toEqualTypeOf<PasscodeCheck>()
  if (!check.ok) {
    // @ts-expect-error no principal on a refusal
    void check.principal
    return check.response
  }
  expectTypeOf(check.principal).toEqualTypeOf<Principal>()
  return Response.json(check.principal, { headers: check.headers })
}

/**
 * One vocabulary: the option types have the same names in every entry, and each former
 * name is still exported as the very same type (or value), deprecated.
 */
/* eslint-disable @typescript-eslint/no-deprecated -- the former names must keep compiling */
export function formerNames(): void {
  expectTypeOf(connectMiddleware).toEqualTypeOf(koaConnectHandler)
  expectTypeOf<koaEntry.ConnectMiddlewareOptions>().toEqualTypeOf<koaEntry.ConnectHandlerOptions>()
  expectTypeOf<koaEntry.KoaDashboardOptions>().toEqualTypeOf<koaEntry.DashboardMountOptions>()
  expectTypeOf<expressEntry.ExpressDashboardOptions>().toEqualTypeOf<expressEntry.DashboardMountOptions>()
  expectTypeOf<fetchEntry.FetchConnectOptions>().toEqualTypeOf<fetchEntry.ConnectHandlerOptions>()
  expectTypeOf<fetchEntry.FetchDashboardOptions>().toEqualTypeOf<fetchEntry.DashboardMountOptions>()
  expectTypeOf<honoEntry.HonoAdapterOptions>().toEqualTypeOf<honoEntry.RequirePasscodeOptions>()
  expectTypeOf<honoEntry.HonoConnectOptions>().toEqualTypeOf<honoEntry.ConnectHandlerOptions>()
  expectTypeOf<fastifyEntry.DashboardPluginOptions>().toEqualTypeOf<fastifyEntry.DashboardMountOptions>()
  expectTypeOf<NodeConnectOptions>().toEqualTypeOf<NodeConnectHandlerOptions>()
  expectTypeOf<NodeDashboardOptions>().toEqualTypeOf<NodeDashboardMountOptions>()
}
/* eslint-enable @typescript-eslint/no-deprecated */

/** The same names in every entry that has the job; each entry's shape is its framework's. */
export function sameNames(): void {
  expectTypeOf<Parameters<typeof expressEntry.requirePasscode>[1]>().toEqualTypeOf<expressEntry.RequirePasscodeOptions | undefined>()
  expectTypeOf<Parameters<typeof koaEntry.requirePasscode>[1]>().toEqualTypeOf<koaEntry.RequirePasscodeOptions | undefined>()
  expectTypeOf<Parameters<typeof honoEntry.requirePasscode>[1]>().toEqualTypeOf<honoEntry.RequirePasscodeOptions | undefined>()
  expectTypeOf<Parameters<typeof fetchEntry.requirePasscode>[1]>().toEqualTypeOf<fetchEntry.RequirePasscodeOptions | undefined>()
  expectTypeOf<Parameters<typeof expressEntry.connectHandler>[1]>().toEqualTypeOf<expressEntry.ConnectHandlerOptions | undefined>()
  expectTypeOf<Parameters<typeof koaEntry.connectHandler>[1]>().toEqualTypeOf<koaEntry.ConnectHandlerOptions | undefined>()
  expectTypeOf<Parameters<typeof honoEntry.connectHandler>[1]>().toEqualTypeOf<honoEntry.ConnectHandlerOptions | undefined>()
  expectTypeOf<Parameters<typeof fetchEntry.connectHandler>[1]>().toEqualTypeOf<fetchEntry.ConnectHandlerOptions | undefined>()
  expectTypeOf<Parameters<typeof expressEntry.leakReportHandler>[1]>().toEqualTypeOf<expressEntry.LeakReportHandlerOptions>()
  expectTypeOf<Parameters<typeof koaEntry.leakReportHandler>[1]>().toEqualTypeOf<koaEntry.LeakReportHandlerOptions>()
  expectTypeOf<Parameters<typeof honoEntry.leakReportHandler>[1]>().toEqualTypeOf<honoEntry.LeakReportHandlerOptions>()
  expectTypeOf<Parameters<typeof fetchEntry.leakReportHandler>[1]>().toEqualTypeOf<fetchEntry.LeakReportHandlerOptions>()
  expectTypeOf<Parameters<typeof expressEntry.dashboard>[1]>().toEqualTypeOf<expressEntry.DashboardMountOptions>()
  expectTypeOf<Parameters<typeof koaEntry.dashboard>[1]>().toEqualTypeOf<koaEntry.DashboardMountOptions>()
  expectTypeOf<Parameters<typeof honoEntry.dashboard>[1]>().toEqualTypeOf<honoEntry.DashboardMountOptions>()
  expectTypeOf<Parameters<typeof fetchEntry.dashboard>[1]>().toEqualTypeOf<fetchEntry.DashboardMountOptions>()
  expectTypeOf<NonNullable<fastifyEntry.PasscodeAuthPluginOptions['leakReport']>>().toExtend<fastifyEntry.LeakReportHandlerOptions>()
  // One error class for refusals passed on, from every entry whose guard can pass them on.
  expectTypeOf<typeof koaEntry.PasscodeRefusedError>().toEqualTypeOf<typeof expressEntry.PasscodeRefusedError>()
  expectTypeOf<typeof honoEntry.PasscodeRefusedError>().toEqualTypeOf<typeof expressEntry.PasscodeRefusedError>()
  expectTypeOf<typeof fastifyEntry.PasscodeRefusedError>().toEqualTypeOf<typeof expressEntry.PasscodeRefusedError>()
}
