import type express5 from 'express'
import type fastify5 from 'fastify'
import type { FastifyInstance } from 'fastify'
import fc from 'fast-check'
import type Koa3 from 'koa'
import { getRequestListener, type Http2Bindings, type HttpBindings } from '@hono/node-server'
import { getConnInfo } from '@hono/node-server/conninfo'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PasscodeAuth } from '../../src/index'
import { fetchHost, honoHost } from '../fetch/hosts'
import type { RunningApp } from '../conformance/http'
import { createHttpFixture, type HttpFixture } from './fixture'
import { expressApp, fastifyApp, koaApp, listen, listenFastify, nodeApp } from './frameworks'
import { expectedAnswer, headersOf, headSize, hostileRequest, refusedByParser, targetOf, type HostileRequest } from './hostile-model'
import { keptAliveClient, sendRaw, type RawRequest, type RawResponse } from './raw-client'

/**
 * The hostile-input suite (issue 9), run through each adapter over a real socket by
 * one file per framework (test/http/hostile-input-*.test.ts): a fast-check run
 * with a fixed seed of random and adversarial methods, header names, values (control
 * bytes, obs-text 0x80–0xFF, UTF-8, very long, up to ~100 headers, many duplicates)
 * and `partner` values (huge, unicode, control characters, valid and invalid
 * percent-encoding, repeated, bracketed). Every answer must be exactly the one the
 * model in hostile-model.ts predicts: a SPEC §4/§5 body with its status and headers;
 * 405 for other methods on /v1/connect; for other methods on the host's protected
 * route, the framework's own 404 (or Express's automatic OPTIONS reply); for bytes
 * Node's parser refuses, Node's (or Fastify's) own 400/431. Never a 5xx or a stack
 * trace, no error reaching a framework error handler, no unhandled rejection.
 *
 * The cases are the same everywhere (one seed; `FC_SEED` replays another). The whole
 * corpus (10 000 cases under CI=true, 2 000 elsewhere) goes through the layer every
 * adapter translates to: `nodeConnectHandler` and `nodeRequirePasscode` on Node's own
 * `http` server, no framework (test/http/hostile-input-node.test.ts), which reads the
 * request as Express, Fastify and Koa do (`nodeRequestReader`) and answers through the
 * same `createConnectRequest` and verification pipeline as every adapter. Each
 * framework version then gets a sample of the same sequence, 2 000 cases for the
 * current majors and 500 for the older ones, CI or not: what an adapter adds is the
 * translation (reading headers, method and target, routing, writing the answer, its
 * error handling), and each run asserts that every kind of answer came up in it.
 * `HOSTILE_RUNS` sets one count for every run. One file per framework lets vitest run
 * them side by side.
 */
const SEED = Number(process.env.FC_SEED ?? 20_260_101)
const CI = process.env.CI === 'true'
/** Cases for a target: the whole corpus for the shared layer, a sample for each framework version. */
const runsFor = (target: Target): number =>
  Number(process.env.HOSTILE_RUNS ?? (target.corpus === true ? (CI ? 10_000 : 2_000) : target.current ? 2_000 : 500))

const STACK_TRACE = /\n\s+at |\(\/[^)]*:\d+:\d+\)|node_modules|\/src\//

/** A framework version the suite runs through: its name and how to serve the suite's app on it. */
export interface Target {
  readonly name: string
  /** The current major: run with the larger sample. */
  readonly current: boolean
  /** The layer every adapter shares: run with the whole corpus. */
  readonly corpus?: true
  start(auth: PasscodeAuth, errors: unknown[]): Promise<RunningApp>
}

const recordFastifyErrors = (errors: unknown[]) => (app: FastifyInstance) => {
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
    // Fastify's own 4xx for a request it cannot take (a body it cannot parse) is its answer, not a failure.
    if (error.statusCode !== undefined && error.statusCode < 500)
      return reply.code(error.statusCode).send({ statusCode: error.statusCode, code: error.code })
    errors.push(error)
    return reply.code(500).send(`recorded ${error.code} ${error.message}`)
  })
}
/** Express 4 or 5, errors reaching its error handler recorded. */
export const expressTarget = (name: string, current: boolean, express: typeof express5): Target => ({
  name,
  current,
  start: (auth, errors) => {
    const app = expressApp(express, auth)
    app.use((error: unknown, _req: unknown, res: { status(code: number): { end(): void } }, _next: unknown) => {
      errors.push(error)
      res.status(500).end()
    })
    return listen(app)
  },
})
/** Koa 2 or 3, errors it emits recorded. */
export const koaTarget = (name: string, current: boolean, Koa: typeof Koa3): Target => ({
  name,
  current,
  start: (auth, errors) => {
    const app = koaApp(Koa, auth)
    app.on('error', (error) => errors.push(error))
    return listen(app.callback())
  },
})
/** Fastify 4 or 5, errors reaching its error handler recorded. */
export const fastifyTarget = (name: string, current: boolean, fastify: typeof fastify5): Target => ({
  name,
  current,
  start: async (auth, errors) => listenFastify(await fastifyApp(fastify, auth, recordFastifyErrors(errors))),
})

/**
 * The suite's app on Node's own `http` server with no framework (`nodeConnectHandler`,
 * `nodeRequirePasscode`, test/http/frameworks.ts): the shared layer, which gets the
 * whole corpus; an error its handlers throw is recorded and answered 500.
 */
export const nodeTarget: Target = {
  name: 'node http (no framework)',
  current: true,
  corpus: true,
  start: (auth, errors) => {
    const app = nodeApp(auth)
    return listen(async (request, response) => {
      try {
        await app(request, response)
      } catch (error) {
        errors.push(error)
        response.statusCode = 500
        response.end()
      }
    })
  },
}

// Without overriding the test process's global Request and Response (see test/fetch/targets.ts).
const NODE_SERVER = { overrideGlobalObjects: false } as const
/** passcode-auth/fetch on `@hono/node-server`. */
export const fetchTarget: Target = {
  name: 'fetch (node-server)',
  current: true,
  start: (auth, errors) => {
    const host = fetchHost(auth)
    const fetch = (request: Request, env: HttpBindings | Http2Bindings) =>
      host(request, env.incoming.socket.remoteAddress).catch((error: unknown) => {
        errors.push(error)
        return new Response(null, { status: 500 })
      })
    return listen(getRequestListener(fetch, { ...NODE_SERVER, errorHandler: (error) => void errors.push(error) }))
  },
}
/** passcode-auth/hono on `@hono/node-server`. */
export const honoTarget: Target = {
  name: 'hono 4 (node-server)',
  current: true,
  start: (auth, errors) => {
    const app = honoHost(auth, (c) => getConnInfo(c).remote.address)
    app.onError((error, c) => {
      errors.push(error)
      return c.body(null, 500)
    })
    return listen(getRequestListener(app.fetch, { ...NODE_SERVER, errorHandler: (error) => void errors.push(error) }))
  },
}

/** Status of a request whose connection Node reset while refusing it (its 400 or 431 lost in the reset). */
const RESET = 0

/**
 * Sends bytes Node's client refuses over a fresh socket. Node answers a request its
 * parser refuses with 400 and closes at once; when the request was still being
 * written, the close becomes a reset that may swallow the 400: that is {@link RESET}.
 */
function sendRefused(port: number, request: RawRequest): Promise<RawResponse> {
  return sendRaw(port, request, 10_000, { status: RESET, headers: {}, body: Buffer.alloc(0) })
}

/**
 * Checks the answer to `sent` (what `request` went out as) against the model and counts
 * its kind in `tally`; throws with the request and the answer on a mismatch. Plain
 * comparisons rather than one `expect` per property: a run checks tens of thousands of
 * answers, and an `expect` call costs more than the request it checks.
 */
function check(request: HostileRequest, sent: RawRequest, response: RawResponse, fixture: HttpFixture, tally: Map<string, number>): void {
  const { headers, target } = sent
  const body = response.body.toString('latin1')
  const count = (kind: string) => void tally.set(kind, (tally.get(kind) ?? 0) + 1)
  const fail = (what: string): never => {
    const context = {
      method: request.method,
      target: target.slice(0, 300),
      credential: request.credential,
      status: response.status,
      body: body.slice(0, 300),
    }
    expect.fail(`${what}: ${JSON.stringify(context)}`)
  }
  if (response.status >= 500) fail('a 5xx answer')
  if (STACK_TRACE.test(body)) fail('a stack trace in the body')

  if (refusedByParser(headers, target)) {
    if (![400, 431, RESET].includes(response.status)) fail("not Node's parser refusal (400, 431 or a reset)")
    return count('parser refused')
  }
  if (response.status === 431) {
    // Node's own answer past its 16 KiB header limit; never for a small request.
    if (headSize(headers, target) <= 14_000) fail(`431 for a head of ${headSize(headers, target)} bytes`)
    return count('431 too large')
  }
  const expected = expectedAnswer(request, fixture)
  if (expected === 'not-found') {
    // The framework's own answer for a method the host did not route: 404 (Fastify
    // first parses a body it was sent: 400 or 415), or Express's automatic OPTIONS reply.
    const automaticOptions = request.method === 'OPTIONS' && response.status === 200 && /^GET, ?HEAD$/.test(body)
    if (!([400, 404, 405, 413, 415].includes(response.status) || automaticOptions)) fail("not the framework's own answer for an unrouted method")
    return count('framework 404')
  }
  if (response.status !== expected.status) fail(`status ${response.status}, expected ${expected.status}`)
  if (!response.body.equals(Buffer.from(request.method === 'HEAD' ? '' : expected.body, 'utf8')))
    fail(`body other than ${JSON.stringify(expected.body)}`)
  if (response.headers['content-type'] !== 'application/json; charset=utf-8') fail(`Content-Type ${response.headers['content-type']}`)
  if (expected.own && response.headers['cache-control'] !== 'no-store') fail(`Cache-Control ${response.headers['cache-control']}, expected no-store`)
  if (expected.status === 405 && response.headers.allow !== 'GET, HEAD') fail(`Allow ${response.headers.allow}, expected GET, HEAD`)
  count(`${expected.status}${request.method === 'HEAD' ? ' HEAD' : ''}`)
}

/** Runs the suite through each of `targets` (the versions of one framework), one test each. */
export function describeHostileInput(framework: string, targets: readonly Target[]): void {
  describe(`hostile input through ${framework} (seed ${SEED})`, () => {
    let fixture: HttpFixture
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)

    beforeAll(async () => {
      fixture = await createHttpFixture()
      process.on('unhandledRejection', onUnhandled)
      process.on('uncaughtException', onUnhandled)
    })
    afterAll(async () => {
      process.off('unhandledRejection', onUnhandled)
      process.off('uncaughtException', onUnhandled)
      await fixture?.close()
    })

    it.each(targets.map((target) => [target.name, target] as const))(
      '%s',
      async (name, target) => {
        const errors: unknown[] = []
        const app = await target.start(fixture.auth, errors)
        const client = keptAliveClient(app.port)
        const tally = new Map<string, number>()
        const runs = runsFor(target)
        const started = performance.now()
        try {
          await fc.assert(
            fc.asyncProperty(hostileRequest, async (request) => {
              const sent: RawRequest = { method: request.method, target: targetOf(request), headers: headersOf(request, fixture) }
              // What Node's parser refuses, and oversized heads, whose 431 (Fastify's lacks
              // `Connection: close`) ends the connection, go over a connection of their own.
              const response =
                refusedByParser(sent.headers, sent.target) || headSize(sent.headers, sent.target) > 14_000
                  ? await sendRefused(app.port, sent)
                  : await client.send(sent)
              check(request, sent, response, fixture, tally)
            }),
            { seed: SEED, numRuns: runs },
          )
        } finally {
          client.close()
          await app.close()
        }
        // Let a late rejection surface before looking.
        await new Promise((resolve) => setImmediate(resolve))
        const seconds = ((performance.now() - started) / 1000).toFixed(1)
        console.log(`${name}: ${runs} hostile cases in ${seconds} s, answers: ${JSON.stringify(Object.fromEntries([...tally].sort()))}`)
        expect(errors).toEqual([])
        expect(unhandled).toEqual([])
        // The run exercised every kind of answer, not only refusals.
        for (const kind of ['200', '400', '401', '403', '405', 'parser refused', 'framework 404'])
          expect(tally.get(kind) ?? 0, kind).toBeGreaterThan(0)
      },
      600_000,
    )
  })
}
