import { connect } from 'node:net'

/**
 * A request as bytes on the wire. Header values are byte strings (latin1): `'\xe9'`
 * is the single byte 0xE9. Headers may repeat, and a name's case is kept, which
 * `fetch` cannot do.
 */
export interface RawRequest {
  readonly method?: string
  /** Request target, query included, already percent-encoded. */
  readonly target: string
  readonly headers: readonly (readonly [name: string, value: string])[]
  /** Local address to connect from (any of 127.0.0.0/8 on Linux), so the server sees another client. */
  readonly from?: string
}

/** A response as received: lower-cased header names, the body as bytes. */
export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
}

/** Serialises a request exactly as given (plus Host and `Connection: close`). */
export function requestBytes(request: RawRequest, port: number): Buffer {
  const lines = [`${request.method ?? 'GET'} ${request.target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close']
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`)
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = []
  let offset = 0
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset)
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16)
    if (!(size > 0)) return Buffer.concat(parts)
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
    offset = lineEnd + 2 + size + 2
  }
}

/** Parses one HTTP/1.1 response read up to the server closing the connection. */
export function parseResponse(bytes: Buffer): RawResponse {
  const headEnd = bytes.indexOf('\r\n\r\n')
  if (headEnd < 0) throw new Error(`incomplete response: ${JSON.stringify(bytes.toString('latin1'))}`)
  const [statusLine, ...headerLines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1])
  const headers: Record<string, string> = {}
  for (const line of headerLines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value
  }
  let body = bytes.subarray(headEnd + 4)
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body)
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']))
  return { status, headers, body }
}

/**
 * Sends the bytes of `request` over a fresh TCP connection to 127.0.0.1 and reads the
 * answer. With `onReset`, a connection reset by the server (ECONNRESET, EPIPE) is no
 * error: it resolves with what was read before it, or with `onReset` when nothing was.
 */
export function sendRaw(port: number, request: RawRequest, timeoutMs = 10_000, onReset?: RawResponse): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(request.from === undefined ? {} : { localAddress: request.from }) })
    const chunks: Buffer[] = []
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (onReset !== undefined && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        resolve(chunks.length > 0 ? parseResponse(Buffer.concat(chunks)) : onReset)
      } else reject(error)
    })
    socket.on('end', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)))
      } catch (error) {
        reject(error)
      }
    })
    socket.write(requestBytes(request, port))
  })
}
