import { connect } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import express5 from 'express'
import express4 from 'express4'
import fastify5 from 'fastify'
import fastify4 from 'fastify4'
import { Hono } from 'hono'
import Koa3 from 'koa'
import Koa2 from 'koa2'
import { afterEach, describe, expect, it } from 'vitest'
import { createPasscodeAuth, type PasscodeAuth } from '../../src/index'
import { leakReportHandler as expressLeaks } from '../../src/express/index'
import { passcodeAuthPlugin } from '../../src/fastify/index'
import { leakReportHandler as honoLeaks } from '../../src/hono/index'
import { leakReportHandler as koaLeaks } from '../../src/koa/index'
import type { LeakReportKey } from '../../src/fetch/index'
import type { RunningApp } from '../conformance/http'
import { GITHUB_SAMPLE, leakFixture, signedHeaders } from '../helpers/leak-reports'
import { listen, listenFastify } from './frameworks'

type Start = (auth: PasscodeAuth, publicKeys: readonly LeakReportKey[]) => Promise<RunningApp>

const asFastify = (factory: unknown) => factory as typeof fastify5
const fastifyStart =
  (factory: typeof fastify5): Start =>
  async (auth, publicKeys) => {
    const app = factory()
    await app.register(passcodeAuthPlugin, { auth, leakReport: { publicKeys } })
    await app.ready()
    return listenFastify(app)
  }

// Each app mounts the handler at POST /v1/leaks the way its TSDoc shows.
const ADAPTERS: readonly { name: string; start: Start }[] = [
  ...[express4, express5].map((express, index) => ({
    name: `express ${index + 4}`,
    start: ((auth, publicKeys) => {
      const app = express()
      app.post('/v1/leaks', expressLeaks(auth, { publicKeys }))
      return listen(app)
    }) satisfies Start,
  })),
  ...[Koa2, Koa3].map((Koa, index) => ({
    name: `koa ${index + 2}`,
    start: ((auth, publicKeys) => {
      const app = new Koa()
      const leaks = koaLeaks(auth, { publicKeys })
      app.use((ctx, next) => (ctx.path === '/v1/leaks' ? leaks(ctx, next) : next()))
      return listen(app.callback())
    }) satisfies Start,
  })),
  {
    name: 'hono',
    start: (auth, publicKeys) => {
      const app = new Hono()
      app.post('/v1/leaks', honoLeaks(auth, { publicKeys }))
      return listen(getRequestListener(app.fetch))
    },
  },
  { name: 'fastify 4', start: fastifyStart(asFastify(fastify4)) },
  { name: 'fastify 5', start: fastifyStart(fastify5) },
]

const running: RunningApp[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()))
})

async function start(adapter: Start, auth: PasscodeAuth, publicKeys: readonly LeakReportKey[]): Promise<string> {
  const app = await adapter(auth, publicKeys)
  running.push(app)
  return `http://127.0.0.1:${app.port}/v1/leaks`
}

describe.each(ADAPTERS)('SPEC 5.42 leakReportHandler over a socket: $name', ({ start: adapter }) => {
  it("verifies GitHub's sample; answers the labels, disables the live value, mails once; a replay changes nothing", async () => {
    const sampleUrl = await start(adapter, createPasscodeAuth({ store: (await leakFixture()).store }), [
      { id: GITHUB_SAMPLE.keyId, pem: GITHUB_SAMPLE.pem },
    ])
    const sample = await fetch(sampleUrl, {
      method: 'POST',
      body: GITHUB_SAMPLE.payload,
      headers: {
        'content-type': 'application/json',
        'github-public-key-identifier': GITHUB_SAMPLE.keyId,
        'github-public-key-signature': GITHUB_SAMPLE.signature,
      },
    })
    expect(sample.status).toBe(200)
    expect(await sample.json()).toEqual([{ token_raw: 'some_token', token_type: 'some_type', label: 'false_positive' }])

    const fixture = await leakFixture()
    const url = await start(adapter, fixture.auth, fixture.publicKeys)
    const send = () => fetch(url, { method: 'POST', body: fixture.report, headers: signedHeaders(fixture.key, fixture.report) })
    const response = await send()
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(fixture.expectedAnswer)
    const otherInstance = createPasscodeAuth({ store: fixture.store })
    expect(await otherInstance.authenticate({ accountId: 'acc', passcode: fixture.live.value })).toMatchObject({ ok: false, statusCode: 400 })
    expect(fixture.mailer.messages).toHaveLength(1)
    expect(JSON.stringify(fixture.mailer.messages)).not.toContain(fixture.live.value)
    const records = await fixture.leakRecords()
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ actor: { type: 'system' }, target: { type: 'passcode', id: fixture.live.passcode.id } })
    expect(JSON.stringify(records)).not.toContain(fixture.live.value)

    const events = fixture.events.length
    const replay = await send()
    expect(await replay.json()).toEqual(fixture.expectedAnswer)
    expect(fixture.mailer.messages).toHaveLength(1)
    expect(fixture.events).toHaveLength(events)
    expect(await fixture.leakRecords()).toHaveLength(1)
  })

  it('closes the connection after a 413 instead of waiting for the rest of a body it will not read', async () => {
    const fixture = await leakFixture()
    const url = new URL(await start(adapter, fixture.auth, fixture.publicKeys))
    const headers = signedHeaders(fixture.key, 'x')
    const socket = connect(Number(url.port), url.hostname)
    let received = ''
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')))
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.on('error', () => {}) // a reset while the rest of the body was on its way is a close too
    // Declares 2 MiB and sends 64 KiB of it, then waits: the server answers 413 from the
    // declared length and must end the connection, or it would hold it (and a graceful
    // close of the server) until the client gives up.
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1_048_576}\r\n` +
        Object.entries(headers)
          .filter(([name]) => name !== 'content-type')
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('') +
        '\r\n',
    )
    socket.write(Buffer.alloc(65_536, 0x20))
    await closed
    expect(received).toMatch(/^HTTP\/1\.1 413 /)
    expect(received.toLowerCase()).toContain('connection: close')
  })

  it('refuses each kind of bad report with its status in the error shape, and changes nothing', async () => {
    const fixture = await leakFixture()
    const url = await start(adapter, fixture.auth, fixture.publicKeys)
    // The 413 last: a server may close a kept-alive connection whose body it did not read.
    const bad413Last = fixture.badReports().sort((a, b) => Number(a.status === 413) - Number(b.status === 413))
    for (const bad of bad413Last) {
      let status: number
      let body: unknown
      try {
        const response = await fetch(url, { method: 'POST', body: bad.body as BodyInit, headers: bad.headers })
        status = response.status
        body = await response.json()
      } catch (error) {
        // A server may close the connection after a 413 while the client still sends.
        if (bad.status !== 413) throw error
        continue
      }
      expect({ name: bad.name, status }).toEqual({ name: bad.name, status: bad.status })
      expect(Object.keys(body as object)).toEqual(['error'])
    }
    expect(await fixture.unchanged()).toBe(true)
  })
})
