import { once } from 'node:events'
import { Agent, request as httpRequest } from 'node:http'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { METHODS } from './hostile-model'
import { keptAliveClient, keptAliveRequestBytes, type KeptAliveClient, type RawRequest } from './raw-client'

/**
 * The keep-alive client of the hostile-input suite (test/http/raw-client.ts) stands in
 * for Node's `http.request` with a keep-alive `Agent`: it must send the same bytes and
 * read answers as Node's client does, framed by length, by chunks, to HEAD, or by the
 * end of the connection, on a new connection once the server ended the last.
 */

/** Where a request in `bytes` ends (an empty chunked body included), or -1 while incomplete. */
function requestEnd(bytes: Buffer): number {
  const headEnd = bytes.indexOf('\r\n\r\n')
  if (headEnd < 0) return -1
  if (!/\r\nTransfer-Encoding: chunked\r\n/i.test(bytes.subarray(0, headEnd + 2).toString('latin1'))) return headEnd + 4
  const bodyEnd = bytes.indexOf('0\r\n\r\n', headEnd + 4)
  return bodyEnd < 0 ? -1 : bodyEnd + 5
}

/** A server that records each request's bytes and answers it with the next of `answers` (the last one again once they run out). */
async function scripted(answers: readonly string[]): Promise<{ port: number; requests: string[]; connections: () => number; server: Server }> {
  const requests: string[] = []
  let connections = 0
  const server = createServer((socket: Socket) => {
    connections += 1
    let bytes = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk])
      for (let end = requestEnd(bytes); end >= 0; end = requestEnd(bytes)) {
        requests.push(bytes.subarray(0, end).toString('latin1'))
        bytes = bytes.subarray(end)
        const answer = answers[Math.min(requests.length, answers.length) - 1]!
        if (answer.endsWith('<end>')) socket.end(answer.slice(0, -'<end>'.length))
        else socket.write(answer)
      }
    })
    socket.on('error', () => {})
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { port: (server.address() as AddressInfo).port, requests, connections: () => connections, server }
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'
const servers: Server[] = []
const clients: KeptAliveClient[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) client.close()
  await Promise.all(servers.splice(0).map(async (server) => new Promise((resolve) => server.close(resolve))))
})
async function serve(answers: readonly string[]) {
  const running = await scripted(answers)
  servers.push(running.server)
  const client = keptAliveClient(running.port, 300)
  clients.push(client)
  return { ...running, client }
}

describe('the kept-alive client', () => {
  it("sends the bytes Node's http.request sends through a keep-alive Agent", async () => {
    const { port, requests, server } = await scripted([OK])
    servers.push(server)
    const headerSets: RawRequest['headers'][] = [
      [],
      [
        ['X-Service-Account-Id', 'acc_both'],
        ['x-service-passcode', ' psc_a\xe9\xff '],
        ['Accept', 'a'],
        ['accept', 'b'],
      ],
      [['Content-Type', 'application/json']],
    ]
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      for (const method of [...METHODS, 'PATCH', 'QUERY']) {
        for (const headers of headerSets) {
          const request: RawRequest = { method, target: '/v1/connect?partner=%C3%A9&a=b', headers }
          const before = requests.length
          await new Promise<void>((resolve, reject) => {
            const flat = ['Host', `127.0.0.1:${port}`, ...headers.flat()]
            const sent = httpRequest({ agent, host: '127.0.0.1', port, method, path: request.target, headers: flat }, (response) => {
              response.resume()
              response.on('end', resolve)
            })
            sent.on('error', reject)
            sent.end()
          })
          expect(requests.slice(before)).toEqual([keptAliveRequestBytes(request, port).toString('latin1')])
        }
      }
    } finally {
      agent.destroy()
    }
  })

  it('reads answers framed by length, by chunks and to HEAD over one connection', async () => {
    const { client, connections } = await serve([
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\nCache-Control: no-store\r\n\r\n{}',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nVary: a\r\nvary:  b \r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nTrailer-Field: z\r\n\r\n',
      'HTTP/1.1 403 Forbidden\r\nContent-Length: 57\r\n\r\n',
      'HTTP/1.1 204 No Content\r\n\r\n',
    ])
    const first = await client.send({ target: '/a', headers: [] })
    expect(first).toEqual({
      status: 400,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '2', 'cache-control': 'no-store' },
      body: Buffer.from('{}'),
    })
    const chunked = await client.send({ target: '/b', headers: [] })
    expect([chunked.status, chunked.headers.vary, chunked.body.toString()]).toEqual([200, 'a, b', 'abcde'])
    const head = await client.send({ method: 'HEAD', target: '/c', headers: [] })
    expect([head.status, head.body.length]).toEqual([403, 0])
    expect((await client.send({ method: 'DELETE', target: '/d', headers: [] })).status).toBe(204)
    expect(connections()).toBe(1)
  })

  it('opens a new connection after an answer with Connection: close, or one the server ended, or one that ran to the end', async () => {
    const { client, connections, requests } = await serve([
      'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ny<end>',
      'HTTP/1.1 404 Not Found\r\n\r\nrest of the connection<end>',
      OK,
    ])
    expect((await client.send({ target: '/1', headers: [] })).body.toString()).toBe('x')
    expect((await client.send({ target: '/2', headers: [] })).body.toString()).toBe('y')
    // Let the end of the connection arrive, as it would between two cases.
    await new Promise((resolve) => setTimeout(resolve, 20))
    const toTheEnd = await client.send({ target: '/3', headers: [] })
    expect([toTheEnd.status, toTheEnd.body.toString()]).toEqual([404, 'rest of the connection'])
    expect((await client.send({ target: '/4', headers: [] })).status).toBe(200)
    expect(requests.map((request) => request.split(' ', 2)[1])).toEqual(['/1', '/2', '/3', '/4'])
    expect(connections()).toBe(4)
  })

  it('rejects a malformed answer, one cut short, one that never comes, and bytes nobody asked for', async () => {
    for (const [answer, error] of [
      ['HTTP/1.1 2x0 OK\r\n\r\n', /malformed status line/],
      ['HTTP/1.1 200 OK\r\nBad Header\r\nContent-Length: 0\r\n\r\n', /malformed header line/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\n\r\nx', /malformed Content-Length/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n', /framing Node's client refuses/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /malformed chunk size/],
      ['HTTP/1.1 100 Continue\r\n\r\n', /interim answer/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort<end>', /ended before a complete answer/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nextra', /bytes nobody asked for/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nslow', /no complete answer within 300 ms/],
    ] as const) {
      const { client } = await serve([answer])
      await expect(client.send({ target: '/', headers: [] }), answer).rejects.toThrow(error)
    }
  })
})
