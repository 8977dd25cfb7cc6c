import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { inspect } from 'node:util'
import express from 'express'
import fastify from 'fastify'
import Koa from 'koa'
import { afterEach, describe, expect, it } from 'vitest'
import { createPasscodeAuth, type AuditEvent } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { connectHandler, requirePasscode as expressRequirePasscode } from '../../src/express/index'
import { passcodeAuthPlugin } from '../../src/fastify/index'
import { connectHandler as koaConnectHandler, requirePasscode as koaRequirePasscode } from '../../src/koa/index'
import { memoryMailer, memoryStore } from '../../src/memory'
import { listen, listenFastify } from '../http/frameworks'
import { sendRaw } from '../http/raw-client'
import { admin, manualClock } from '../helpers/service'

/**
 * SPEC §5.19 end to end (issue 9): everything a host could end up writing somewhere
 * during a full scenario (stdout, stderr, console, a Fastify request logger, the
 * onEvent hook, every error thrown or passed to an error handler and how a careless
 * host would print it, the emails, every returned object) is captured, and none of it
 * holds a passcode value, the pepper or an encryption key, in any common encoding.
 */

/** Every text form a secret could take in output. */
function forms(secret: string | Uint8Array): string[] {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret)
  const all = [bytes.toString('base64url'), bytes.toString('base64'), bytes.toString('hex'), bytes.toString('latin1')]
  if (typeof secret === 'string') all.push(secret, secret.slice(4, -4)) // the whole value and its middle
  return all.filter((form) => form.length >= 12)
}

/** How a host might render anything it gets hold of. */
function renderings(thing: unknown): string[] {
  const out = [inspect(thing, { depth: 12, showHidden: true }), String(thing)]
  try {
    out.push(JSON.stringify(thing) ?? '')
  } catch {
    // circular: inspect covers it
  }
  if (thing instanceof Error) out.push(thing.message, thing.stack ?? '', inspect(thing.cause, { depth: 12 }))
  return out
}

const restore: (() => void)[] = []
afterEach(() => {
  while (restore.length > 0) restore.pop()!()
})

/** Records everything written to stdout, stderr and the console until the test ends. */
function captureOutput(): string[] {
  const captured: string[] = []
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream)
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1'))
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest)
    }
    restore.push(() => {
      stream.write = write
    })
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir'] as const) {
    const original = console[method]
    console[method] = (...args: unknown[]) => void captured.push(...args.map((arg) => inspect(arg, { depth: 12 })))
    restore.push(() => {
      console[method] = original
    })
  }
  return captured
}

describe('secrets never reach output, events, errors or emails (SPEC §5.19)', () => {
  it('during create, authenticate (ok, wrong, expired, rate limited) over HTTP, reset, revoke, delete and notify', async () => {
    const output = captureOutput()
    const events: AuditEvent[] = []
    const errors: unknown[] = []
    const returned: unknown[] = []
    const values: string[] = []
    const pepper = randomBytes(24).toString('base64url')
    const oldKey = randomBytes(32)
    const newKey = randomBytes(32).toString('base64url')
    const clock = manualClock()
    const mailer = memoryMailer()
    const base = memoryStore()
    let storeFails = false
    const store = new Proxy(base, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (key !== 'findCredentialByHash' || typeof value !== 'function') return value
        return (hash: string) => (storeFails ? Promise.reject(new Error(`lookup failed for ${hash}`)) : value.call(target, hash))
      },
    })
    const auth = createPasscodeAuth({
      store,
      partners: ['acme'],
      pepper,
      encryptionKeys: [
        { id: 'k2', key: newKey },
        { id: 'k1', key: oldKey },
      ],
      mailer,
      recipients: (accountId) => [`ops@${accountId}.example`],
      clock,
      onEvent: (event) => void events.push(event),
      rateLimit: { windowMs: 60_000, maxFailuresPerAddress: 13, maxFailuresPerAccount: 50 },
    })
    const keep = async <T>(operation: Promise<T>): Promise<T | undefined> => {
      try {
        const result = await operation
        returned.push(result)
        return result
      } catch (error) {
        errors.push(error)
        return undefined
      }
    }
    const member = { userId: 'u1', role: 'member' } as const

    // Management: three account passcodes, two user passcodes.
    const long = (await keep(auth.passcodes.create(admin, 'acc', { name: 'Long', expiry: 90 })))!
    const soon = (await keep(auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 20 })))!
    const brief = (await keep(auth.passcodes.create(admin, 'acc', { name: 'Brief', expiry: 1 })))!
    values.push(long.value, soon.value, brief.value)
    await keep(auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both'))
    await keep(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 30 } }))
    await keep(auth.userPasscodes.grant(admin, 'acc', 'u2', { validity: { type: 'infinite' } }))
    const u1 = (await keep(auth.userPasscodes.reveal(member, 'acc')))!.value
    const u2 = (await keep(auth.userPasscodes.reveal({ userId: 'u2', role: 'member' }, 'acc')))!.value
    values.push(u1, u2)
    // Refusals that throw.
    await keep(auth.passcodes.create(admin, 'acc', { name: 'long', expiry: 5 }))
    await keep(auth.passcodes.create(member, 'acc', { name: 'Nope', expiry: 5 }))
    await keep(auth.passcodes.create(admin, 'acc', { name: long.value, expiry: 0 }))
    await keep(createPasscodeAuth({ store: memoryStore() }).userPasscodes.grant(admin, 'acc', 'u9', { validity: { type: 'infinite' } }))
    await keep(Promise.resolve().then(() => createPasscodeAuth({ store: memoryStore(), pepper: pepper.slice(0, 10) })))
    await keep(Promise.resolve().then(() => createPasscodeAuth({ store: memoryStore(), encryptionKeys: [{ id: 'bad', key: newKey.slice(0, 20) }] })))

    // Over HTTP, with hosts that log every refusal and every error they see.
    const expressApp = express()
    expressApp.get('/v1/connect', connectHandler(auth))
    expressApp.get('/1/events.json', expressRequirePasscode(auth, { onRefusal: 'next' }), (req, res) => void res.json(req.passcodeAuth))
    expressApp.use(
      (
        error: Error & { statusCode: number; headers: Record<string, string>; body: unknown },
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        errors.push(error)
        console.error('refused', error)
        res.status(error.statusCode).set(error.headers).send(error.body)
      },
    )
    const fastifyApp = fastify({
      logger: {
        level: 'trace',
        stream: new Writable({
          write: (chunk, _encoding, done) => {
            output.push(String(chunk))
            done()
          },
        }),
      },
    })
    await fastifyApp.register(passcodeAuthPlugin, { auth })
    fastifyApp.get('/1/events.json', { onRequest: fastifyApp.requirePasscode }, async (request) => request.passcodeAuth)
    const koaApp = new Koa()
    koaApp.on('error', (error) => {
      errors.push(error)
      console.error(error)
    })
    const koaConnect = koaConnectHandler(auth)
    koaApp.use((ctx, next) => (ctx.path === '/v1/connect' ? koaConnect(ctx, next) : next()))
    koaApp.use(koaRequirePasscode(auth))
    koaApp.use((ctx) => {
      ctx.body = ctx.state.passcodeAuth
    })
    const apps = [await listen(expressApp), await listenFastify(fastifyApp), await listen(koaApp.callback())]

    const statuses: number[] = []
    try {
      const call = async (target: string, accountId: string, passcode: string) => {
        for (const app of apps) {
          const response = await sendRaw(app.port, {
            target,
            headers: [
              ['X-Service-Account-Id', accountId],
              ['X-Service-Passcode', passcode],
            ],
          })
          statuses.push(response.status)
          returned.push(response.headers, response.body.toString('latin1'))
        }
      }
      await call('/v1/connect?partner=acme', 'acc', long.value)
      await call('/v1/connect?partner=globex', 'acc', u1)
      await call('/1/events.json', 'acc', u1)
      await call('/1/events.json', 'other', long.value)
      await call('/1/events.json', 'acc', `${long.value.slice(0, -1)}${long.value.endsWith('A') ? 'B' : 'A'}`)
      await keep(auth.userPasscodes.reset(admin, 'acc', 'u1'))
      const u1b = (await keep(auth.userPasscodes.reveal(member, 'acc')))!.value
      values.push(u1b)
      await call('/1/events.json', 'acc', u1) // the old value, just reset
      await keep(auth.userPasscodes.revoke(admin, 'acc', 'u2'))
      await call('/1/events.json', 'acc', u2)
      await keep(auth.userPasscodes.reveal({ userId: 'u2', role: 'member' }, 'acc'))
      storeFails = true
      await call('/v1/connect?partner=acme', 'acc', soon.value)
      storeFails = false
      clock.advance(DAY_MS)
      await call('/v1/connect?partner=acme', 'acc', brief.value) // expired
      const mistyped = `${soon.value.slice(0, -1)}${soon.value.endsWith('A') ? 'B' : 'A'}`
      for (let i = 0; i < 4; i++) await call('/1/events.json', 'acc', mistyped) // the 13th failure and on: 429
      await keep(auth.passcodes.delete(admin, 'acc', long.passcode.id))
      await call('/v1/connect?partner=acme', 'acc', long.value)
    } finally {
      await Promise.all(apps.map((app) => app.close()))
    }

    // Notifications: "expiring soon" for Soon, "expired" for Brief.
    const report = await keep(auth.notifyExpirations())
    returned.push(auth, store, mailer.messages)

    // The scenario really produced everything it is meant to search.
    expect(new Set(statuses), statuses.join(',')).toEqual(new Set([200, 400, 401, 403, 429, 503]))
    expect(report?.sent.length).toBeGreaterThanOrEqual(2)
    expect(mailer.messages.length).toBeGreaterThanOrEqual(2)
    expect(events.length).toBeGreaterThan(40)
    expect(errors.length).toBeGreaterThanOrEqual(8)
    expect(output.some((line) => line.includes('refused'))).toBe(true)
    expect(output.some((line) => line.includes('"msg":"request completed"'))).toBe(true)

    const secrets = [...values.flatMap(forms), ...forms(pepper), ...forms(oldKey), ...forms(newKey), ...forms(Buffer.from(newKey, 'base64url'))]
    expect(values).toHaveLength(6)
    const haystacks: [string, string][] = [
      ...output.map((text): [string, string] => ['output', text]),
      ...[...events, ...errors, ...returned].flatMap((thing) => renderings(thing).map((text): [string, string] => ['object', text])),
    ]
    for (const [where, text] of haystacks) {
      for (const secret of secrets) {
        if (text.includes(secret)) expect.fail(`a secret appeared in ${where}: ${text.replaceAll(secret, '[SECRET]').slice(0, 300)}`)
      }
    }
  }, 60_000)
})
