import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/**
 * The HTTP side of a test instance: the small host program that the fleet soak
 * (scripts/soak/fleet-instance.ts) and the mixed-version test
 * (test/upgrade/mixed-version-instance.ts) each start as child processes. It imports
 * nothing of passcode-auth: each instance passes in what it built with the version it
 * runs (the mixed-version test runs the previous version's built package). Routes, on
 * 127.0.0.1 only:
 * - `GET /verify`: `guard` (the instance's `nodeRequirePasscode`); 200 `{ ok: true }` once
 *   it accepts, the guard's own answer otherwise;
 * - `POST /manage`: the JSON body to `manage`; 200 with its result, or 500 with the error's
 *   `code` (`errorCode`), since the runner only needs to know that the change may not
 *   have happened.
 * It tells the runner its port over IPC (`{ type: 'listening', port }`) and, on SIGTERM,
 * closes the server, then `close()`, then exits 0.
 */
export function serveInstance(instance: {
  readonly guard: (request: IncomingMessage, response: ServerResponse) => unknown
  /** The parsed JSON body, to check and cast as the instance's own request type. */
  readonly manage: (body: unknown) => Promise<unknown>
  readonly errorCode: (error: unknown) => string
  readonly close: () => Promise<unknown>
}): void {
  const reply = (response: ServerResponse, status: number, body: unknown): void => {
    response.statusCode = status
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify(body))
  }
  const readJson = async (request: IncomingMessage): Promise<unknown> => {
    let text = ''
    for await (const chunk of request) text += String(chunk)
    return JSON.parse(text) as unknown
  }

  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0]
    if (path === '/verify') {
      const principal = instance.guard(request, response)
      if (principal instanceof Promise) void principal.then((who) => who !== undefined && reply(response, 200, { ok: true }))
      else reply(response, 200, { ok: true })
      return
    }
    if (path === '/manage' && request.method === 'POST') {
      readJson(request)
        .then(instance.manage)
        .then(
          (result) => reply(response, 200, result),
          (error: unknown) => reply(response, 500, { code: instance.errorCode(error) }),
        )
      return
    }
    reply(response, 404, {})
  })
  server.keepAliveTimeout = 30_000
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    process.send?.({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 })
  })

  process.once('SIGTERM', () => {
    server.close()
    server.closeAllConnections()
    void instance.close().finally(() => process.exit(0))
  })
}
