import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { LookupAddress } from 'node:dns'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WEBHOOK_MAX_RESPONSE_BYTES, WEBHOOK_TIMEOUT_MS } from '../../src/core/webhook-schedule'
import { nodeWebhookSender, type WebhookLookup } from '../../src/http/node/webhook-sender'
import type { WebhookSendRequest } from '../../src/ports/webhook-sender'

/*
 * SPEC 5.53, the Node sender over real sockets, on loopback only: the receivers listen on
 * 127.0.0.1, which the sender refuses unless the request allows private addresses (as
 * the host's `webhooks.allowPrivateAddresses` does in tests). Public addresses are given
 * by a lookup of the test's own and never connected to.
 */

interface Receiver {
  readonly port: number
  readonly url: string
  /** Requests that reached it. */
  readonly requests: IncomingMessage[]
  /** Sockets that closed, of those it accepted. */
  readonly closed: () => number
  readonly accepted: () => number
  close(): Promise<void>
}

const open: Receiver[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((receiver) => receiver.close()))
})

async function receiver(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<Receiver> {
  const requests: IncomingMessage[] = []
  const sockets = new Set<Socket>()
  let closed = 0
  const server = createServer((request, response) => {
    requests.push(request)
    handle(request, response)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => closed++)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const made: Receiver = {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    closed: () => closed,
    accepted: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
  open.push(made)
  return made
}

const answer =
  (status: number, headers: Record<string, string> = {}) =>
  (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(status, headers).end()
  }

const delivery = (url: string, allowPrivateAddresses: boolean, overrides: Partial<WebhookSendRequest> = {}): WebhookSendRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
  body: '{"type":"webhook.test","timestamp":"2026-01-05T09:00:00.000Z","data":{}}',
  timeoutMs: WEBHOOK_TIMEOUT_MS,
  maxResponseBytes: WEBHOOK_MAX_RESPONSE_BYTES,
  allowPrivateAddresses,
  ...overrides,
})

/** A resolver that answers each call with the next list of addresses (the last one again when they run out). */
function lookupOf(...answers: (readonly string[])[]): WebhookLookup & { calls: number } {
  const lookup = Object.assign(
    async (_hostname: string): Promise<readonly LookupAddress[]> => {
      const addresses = answers[Math.min(lookup.calls, answers.length - 1)]!
      lookup.calls++
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    },
    { calls: 0 },
  )
  return lookup
}

/** Polls `probe` until it holds, for at most `boundMs`. */
async function eventually(probe: () => boolean, boundMs = 5_000): Promise<void> {
  const until = Date.now() + boundMs
  while (!probe()) {
    if (Date.now() > until) throw new Error(`not within ${boundMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const PUBLIC = '93.184.215.14'

describe('SPEC 5.53 the Node webhook sender: addresses, redirects, time and size, over loopback sockets', () => {
  it('the delivery constants are the SPEC’s: 15 s per attempt, 64 KiB of an answer', () => {
    expect(WEBHOOK_TIMEOUT_MS).toBe(15_000)
    expect(WEBHOOK_MAX_RESPONSE_BYTES).toBe(64 * 1024)
  })

  it('refuses loopback, private, link-local, metadata and the other non-public addresses at registration, in every spelling', async () => {
    const refused = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '2002:7f00:1::',
      '224.0.0.1',
    ]
    for (const address of refused) {
      const sender = nodeWebhookSender({ lookup: lookupOf([address]) })
      const checked = await sender.check('https://hooks.example.com/passcodes', { allowPrivateAddresses: false })
      expect(checked, address).toMatchObject({ ok: false, reason: expect.stringMatching(/must not resolve to/) })
      expect(await sender.check('https://hooks.example.com/passcodes', { allowPrivateAddresses: true }), address).toEqual({ ok: true })
    }
    // One refused address among public ones is enough to refuse the name.
    const mixed = nodeWebhookSender({ lookup: lookupOf([PUBLIC, '10.0.0.7']) })
    expect(await mixed.check('https://hooks.example.com/', { allowPrivateAddresses: false })).toMatchObject({ ok: false })
    const fine = nodeWebhookSender({ lookup: lookupOf([PUBLIC, '2606:2800:220:1:248:1893:25c8:1946']) })
    expect(await fine.check('https://hooks.example.com/', { allowPrivateAddresses: false })).toEqual({ ok: true })
    // Literal addresses are judged without a lookup, IPv6 ones in brackets too.
    const literal = nodeWebhookSender({ lookup: lookupOf([PUBLIC]) })
    expect(await literal.check('http://127.0.0.1:8080/', { allowPrivateAddresses: false })).toMatchObject({ ok: false })
    expect(await literal.check('http://[::1]:8080/', { allowPrivateAddresses: false })).toMatchObject({ ok: false })
    expect(await literal.check('http://[::ffff:169.254.169.254]/', { allowPrivateAddresses: false })).toMatchObject({ ok: false })
  })

  it('refuses a loopback receiver at the connection unless the request allows it; the receiver sees nothing refused', async () => {
    const hook = await receiver(answer(204))
    const sender = nodeWebhookSender()
    const refused = await sender.send(delivery(hook.url, false))
    expect(refused).toEqual({ statusCode: null, error: expect.stringMatching(/refused address \(loopback\)/) })
    expect(hook.accepted()).toBe(0)
    expect(await sender.send(delivery(hook.url, true))).toEqual({ statusCode: 204, error: null })
    expect(hook.requests).toHaveLength(1)
    expect(hook.requests[0]!.headers['webhook-id']).toBe('msg_1')
  })

  it('DNS rebinding: a name public at registration that resolves to loopback at the connection reaches nothing', async () => {
    const hook = await receiver(answer(204))
    const url = `http://hooks.rebinding.test:${hook.port}/hooks`
    const lookup = lookupOf([PUBLIC], ['127.0.0.1'])
    const sender = nodeWebhookSender({ lookup })
    expect(await sender.check(url, { allowPrivateAddresses: false })).toEqual({ ok: true })
    const sent = await sender.send(delivery(url, false))
    expect(sent).toEqual({ statusCode: null, error: expect.stringMatching(/refused address \(loopback\)/) })
    // Resolved again at the connection, not taken from the registration.
    expect(lookup.calls).toBe(2)
    expect(hook.accepted()).toBe(0)
    // Allowed, the connection goes to the address just checked, with the URL's host name in Host.
    const allowed = nodeWebhookSender({ lookup: lookupOf(['127.0.0.1']) })
    expect(await allowed.send(delivery(url, true))).toEqual({ statusCode: 204, error: null })
    expect(hook.requests.map((request) => request.headers.host)).toEqual([`hooks.rebinding.test:${hook.port}`])
  })

  it('does not follow a redirect: a 3xx fails the attempt and its Location is never reached', async () => {
    const target = await receiver(answer(204))
    const redirecting = await receiver(answer(307, { location: target.url }))
    const sent = await nodeWebhookSender().send(delivery(redirecting.url, true))
    expect(sent).toEqual({ statusCode: 307, error: 'Answered 307: redirects are not followed' })
    expect(redirecting.requests).toHaveLength(1)
    expect(target.accepted()).toBe(0)
  })

  it('fails an attempt with no answer within its time, and closes the connection', async () => {
    const hanging = await receiver(() => {}) // reads the request, never answers
    const started = Date.now()
    const sent = await nodeWebhookSender().send(delivery(hanging.url, true, { timeoutMs: 300 }))
    expect(sent).toEqual({ statusCode: null, error: 'No answer within 300 ms' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(hanging.requests).toHaveLength(1)
    await eventually(() => hanging.closed() === 1)
  })

  it('reads at most 64 KiB of an answer: an endless 200 ends the attempt as a success and its connection is closed', async () => {
    let written = 0
    const endless = await receiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' })
      const chunk = Buffer.alloc(16 * 1024, 'x')
      const more = (): void => {
        while (!response.destroyed) {
          written += chunk.length
          if (!response.write(chunk)) {
            response.once('drain', more)
            return
          }
        }
      }
      more()
    })
    // Its own time is long: were the answer read whole, the attempt would end on it instead.
    const sent = await nodeWebhookSender().send(delivery(endless.url, true, { timeoutMs: 60_000 }))
    expect(sent).toEqual({ statusCode: 200, error: null })
    await eventually(() => endless.closed() === 1)
    expect(written).toBeGreaterThan(WEBHOOK_MAX_RESPONSE_BYTES)
  }, 20_000)

  it('fails an attempt whose connection is dropped, or that answers 500', async () => {
    const dropping = await receiver((request) => request.socket.destroy())
    expect(await nodeWebhookSender().send(delivery(dropping.url, true))).toEqual({
      statusCode: null,
      error: expect.stringMatching(/^Connection failed|cut off/),
    })
    const failing = await receiver(answer(500))
    expect(await nodeWebhookSender().send(delivery(failing.url, true))).toEqual({ statusCode: 500, error: 'Answered 500' })
  })
})
