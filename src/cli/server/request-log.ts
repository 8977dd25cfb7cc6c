/** One answered request, as the reference server logs it: never a header value, a query or a body. */
export interface RequestLogEntry {
  readonly method: string
  /** The request path, without the query. */
  readonly path: string
  readonly status: number
  readonly durationMs: number
  /** Why passcode-auth refused the request (`unknown_passcode`, `expired`, …), when it did. */
  readonly reason?: string | undefined
  /** Made up by the server for this request, and sent back as `X-Request-Id`. */
  readonly requestId: string
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
      }
      write(`${JSON.stringify(line)}\n`)
    }
  }
  return (entry) => {
    const time = now().toISOString().slice(11, 23)
    const reason = entry.reason === undefined ? '' : ` ${paint('yellow', entry.reason)}`
    const duration = entry.durationMs < 10 ? entry.durationMs.toFixed(1) : entry.durationMs.toFixed(0)
    write(`${paint('dim', time)} ${shown(entry.method)} ${shown(entry.path)} ${paint(statusColor(entry.status), String(entry.status))} ${duration} ms${reason} ${paint('dim', entry.requestId)}\n`)
  }
}
