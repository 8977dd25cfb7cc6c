import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'

/**
 * One answered request, as the reference server logs it: never a header value, a query
 * or a body. The one client-chosen value is a well-formed `X-Request-Id`.
 */
export interface RequestLogEntry {
  readonly method: string
  /** The request path, without the query (which may carry a login token). */
  readonly path: string
  /** The status sent; {@link CLIENT_CLOSED} when the connection closed before any was. */
  readonly status: number
  /** From the request's arrival to the end of the answer (or the connection's), in milliseconds. */
  readonly durationMs: number
  /** Why passcode-auth refused the request (`unknown_passcode`, `expired`, …), when it did. */
  readonly reason?: string | undefined
  /** The request's `X-Request-Id` when well-formed, else made up by the server; sent back as `X-Request-Id`. */
  readonly requestId: string
  /** The connection closed before the answer was complete. */
  readonly aborted?: true | undefined
}

/** The status logged when the client closed the connection before any status was sent (nginx's convention). */
export const CLIENT_CLOSED = 499

// Letters, digits and a few separators (UUIDs, hex, base64, `Root=1-…`): nothing a
// terminal, a JSON reader or a header would treat specially.
const REQUEST_ID = /^[A-Za-z0-9._:+/=@-]{1,128}$/

/**
 * The request ID of a request: its `X-Request-Id` when that is one value of 1 to 128
 * letters, digits or `. _ : + / = @ -`, else a new random UUID. A proxy's ID thus
 * follows the request through this server's log; anything else is replaced, not cleaned.
 *
 * @param incoming - the `X-Request-Id` header as Node holds it
 * @example
 * ```ts
 * response.setHeader('x-request-id', requestIdOf(request.headers['x-request-id']))
 * ```
 */
export function requestIdOf(incoming: string | readonly string[] | undefined): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

// Refusal reasons by response, set by the routes that call passcode-auth: the library's
// outcome carries the reason, so reading it costs the library nothing.
const refusals = new WeakMap<ServerResponse, string>()

/**
 * Records why passcode-auth refused the request answered by `response`, for its log line.
 *
 * @example
 * ```ts
 * if (!outcome.ok) noteRefusal(response, outcome.reason)
 * ```
 */
export function noteRefusal(response: ServerResponse, reason: string): void {
  refusals.set(response, reason)
}

/**
 * The reason recorded by {@link noteRefusal} for `response`, if any.
 *
 * @example
 * ```ts
 * response.once('finish', () => log({ ...entry, reason: refusalOf(response) }))
 * ```
 */
export function refusalOf(response: ServerResponse): string | undefined {
  return refusals.get(response)
}

/** How {@link createRequestLog} writes. */
export interface RequestLogOptions {
  /** Receives each line, newline included. */
  readonly write: (line: string) => void
  /** One line for a person instead of JSON: for a terminal. */
  readonly human: boolean
  /** Colours in the human form (not when `NO_COLOR` is set). */
  readonly color?: boolean
  /** @default () => new Date() */
  readonly now?: () => Date
}

// C0, DEL and C1 controls: a path is the client's text, and a terminal obeys escape sequences.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g
const MAX_PATH = 200

const shown = (path: string): string => {
  const cleaned = path.replace(CONTROL, '\uFFFD')
  return cleaned.length <= MAX_PATH ? cleaned : `${cleaned.slice(0, MAX_PATH)}…`
}

// SGR codes, written out: node:util's styleText decides on colours by itself in newer Node versions.
const ANSI = { dim: '2', red: '31', green: '32', yellow: '33' } as const

function statusColor(status: number): 'green' | 'yellow' | 'red' {
  return status >= 500 ? 'red' : status >= 400 ? 'yellow' : 'green'
}

/**
 * The reference server's request log: one JSON object per line (for a log collector)
 * or, on a terminal, one short line for a person. Written with Node's own facilities:
 * the lines have a fixed handful of fields, so `JSON.stringify` and one write per
 * request are all a logging library would do here, and the package keeps its three
 * runtime dependencies.
 *
 * @example
 * ```ts
 * const log = createRequestLog({ write: (line) => process.stdout.write(line), human: process.stdout.isTTY === true })
 * log({ method: 'GET', path: '/v1/connect', status: 200, durationMs: 1.4, requestId: crypto.randomUUID() })
 * ```
 */
export function createRequestLog(options: RequestLogOptions): (entry: RequestLogEntry) => void {
  const { write, human } = options
  const now = options.now ?? (() => new Date())
  const color = options.color === true
  const paint = (style: keyof typeof ANSI, text: string) => (color ? `\x1b[${ANSI[style]}m${text}\x1b[0m` : text)
  if (!human) {
    return (entry) => {
      const line = {
        time: now().toISOString(),
        method: entry.method,
        path: entry.path,
        status: entry.status,
        durationMs: Math.round(entry.durationMs * 100) / 100,
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
        requestId: entry.requestId,
        ...(entry.aborted === true ? { aborted: true } : {}),
      }
      write(`${JSON.stringify(line)}\n`)
    }
  }
  return (entry) => {
    const time = now().toISOString().slice(11, 23)
    const reason = entry.reason === undefined ? '' : ` ${paint('yellow', entry.reason)}`
    const aborted = entry.aborted === true ? ` ${paint('red', 'aborted')}` : ''
    const duration = entry.durationMs < 10 ? entry.durationMs.toFixed(1) : entry.durationMs.toFixed(0)
    write(
      `${paint('dim', time)} ${shown(entry.method)} ${shown(entry.path)} ${paint(statusColor(entry.status), String(entry.status))} ${duration} ms${reason}${aborted} ${paint('dim', shown(entry.requestId))}\n`,
    )
  }
}
