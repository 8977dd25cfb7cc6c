import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request as the fault server saw it. */
export interface RecordedRequest {
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** `Date.now()` when it arrived. */
  readonly at: number
}

/** A local HTTP server that answers however the test says, recording every request. */
export interface FaultServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string
  readonly requests: RecordedRequest[]
  /** Resolves when the next request arrives (or at once if `count` already arrived). */
  waitForRequests(count: number): Promise<void>
  close(): Promise<void>
}

/** Handles the `index`-th request (0-based). */
export type FaultHandler = (request: IncomingMessage, response: ServerResponse, index: number) => void

/** Starts a server on 127.0.0.1, port 0. */
export async function startFaultServer(handler: FaultHandler): Promise<FaultServer> {
  const requests: RecordedRequest[] = []
  const waiters: { count: number; resolve: () => void }[] = []
  const server = createServer((request, response) => {
    const index = requests.length
    requests.push({ url: request.url ?? '', headers: request.headers, at: Date.now() })
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
    handler(request, response, index)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitForRequests: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Sends a JSON body with the headers passcode-auth's adapters send. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  response.end(JSON.stringify(body))
}

/** The SPEC §4 bodies, as the service sends them. */
export const BODIES = {
  success: { status: 'success', message: 'Authorised Successfully.' },
  invalidCredentials: { status: 'fail', error: 'Invalid Credentials', code: 400 },
  missingPartner: { status: 'fail', error: 'Missing partner', code: 400 },
  expired: { status: 'fail', error: 'Passcode expired', code: 401 },
  notWhitelisted: (partner: string) => ({ status: 'fail', error: `Partner not whitelisted ${partner}`, code: 403 }),
  rateLimited: { status: 'fail', error: 'Too Many Requests', code: 429 },
  serverError: (code: 503 | 504) => ({ status: 'fail', error: 'Server Error', code }),
} as const

/** A passcode-shaped test value; not a real credential. */
export const TEST_PASSCODE = 'psc_testOnlyNotARealPasscode0000000000'
