import { existsSync } from 'node:fs'
import { request as httpRequest, type ClientRequest } from 'node:http'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loginLinkIn, migratedDataFolder, serve, shownText, type RunningServer } from './cli-process'

/**
 * SPEC §5.36, on the built command in its own process (signals are a process's own):
 * on SIGTERM, SIGINT or SIGHUP, `serve` stops accepting, lets a slow request in flight
 * finish, releases the data folder and exits 0, and the next start on the same folder
 * is ready at once; a second signal ends it at once with a non-zero code. The slow
 * request is a dashboard POST whose body the client sends in two halves, the signal
 * in between. One data folder serves every start, one after the other.
 */

let folder: { dir: string; remove(): void }
let server: RunningServer | undefined

beforeAll(async () => {
  folder = await migratedDataFolder()
}, 120_000)

afterAll(async () => {
  await server?.stop('SIGKILL')
  folder?.remove()
})

/** Starts `serve` and signs in with the login link it wrote: the session cookie. */
async function start(): Promise<{ server: RunningServer; cookie: string }> {
  const started = Date.now()
  server = await serve(folder.dir, ['--quiet'])
  // A start right after another one's exit does not wait for the folder.
  expect(server.stderr()).not.toContain('Waiting for the data folder')
  expect(Date.now() - started).toBeLessThan(30_000)
  const link = loginLinkIn(await shownText(folder.dir, server.url))
  const login = await fetch(link, { redirect: 'manual' })
  expect(login.status).toBe(303)
  return { server, cookie: (login.headers.get('set-cookie') ?? '').split(';')[0]! }
}

/** A POST whose first half of the body is sent now; `finish` sends the rest. Resolves its status. */
function slowCreate(url: string, cookie: string, name: string): { status: Promise<number>; finish(): void; request: ClientRequest } {
  const body = JSON.stringify({ name, expiry: 30 })
  let request!: ClientRequest
  const status = new Promise<number>((resolve, reject) => {
    request = httpRequest(
      `${url}/settings/api/passcodes`,
      { method: 'POST', headers: { cookie, origin: url, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    request.on('error', reject)
    request.write(body.slice(0, 10))
  })
  return { status, request, finish: () => request.end(body.slice(10)) }
}

/** Whether new connections to `url` are refused within 5 s (polled every 100 ms). */
async function refusesConnections(url: string): Promise<boolean> {
  const deadline = Date.now() + 5_000
  while (Date.now() < deadline) {
    try {
      await (await fetch(`${url}/healthz`)).arrayBuffer()
    } catch {
      return true
    }
    await sleep(100)
  }
  return false
}

describe('SPEC 5.36 serve on a signal', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: finishes the request in flight, releases the folder and exits 0`, async () => {
      const { server: running, cookie } = await start()
      const slow = slowCreate(running.url, cookie, `Slow ${signal}`)
      await sleep(200)
      const exited = running.stop(signal, running.child.pid)
      // No longer accepting: a new connection is refused (once the child handled the signal).
      expect(await refusesConnections(running.url)).toBe(true)
      slow.finish()
      expect(await slow.status).toBe(201)
      expect(await exited).toBe(0)
      server = undefined
      expect(running.stdout()).toContain(`${signal}: shutting down…`)
      expect(running.stdout()).toContain('Stopped.')
      expect(existsSync(path.join(folder.dir, 'lock'))).toBe(false)
      expect(existsSync(path.join(folder.dir, 'serve.sock'))).toBe(false)
    }, 60_000)
  }

  it('a second signal exits at once with a non-zero code, and the folder serves again at once', async () => {
    const { server: running, cookie } = await start()
    const slow = slowCreate(running.url, cookie, 'Never finished')
    slow.status.catch(() => undefined)
    await sleep(200)
    const exited = running.stop('SIGTERM', running.child.pid)
    await sleep(300)
    const second = Date.now()
    process.kill(running.child.pid!, 'SIGTERM')
    const code = await exited
    expect(code).not.toBe(0)
    expect(code).not.toBeNull()
    // At once: well within the 10 s grace the slow request would otherwise get.
    expect(Date.now() - second).toBeLessThan(5_000)
    slow.request.destroy()
    server = undefined
    const { server: again } = await start()
    expect(await again.stop('SIGTERM', again.child.pid)).toBe(0)
    server = undefined
  }, 60_000)
})
