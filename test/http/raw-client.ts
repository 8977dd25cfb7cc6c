import { connect, type Socket } from 'node:net'

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

/**
 * Methods Node's `http.request` sends without a body when ended with none; it frames
 * the others with an empty chunked body (its `useChunkedEncodingByDefault`).
 */
const BODILESS_IN_NODE = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'])

/**
 * The bytes Node's `http.request` sends for `request` through a keep-alive `Agent`:
 * the request line, `Host`, the headers as given, `Connection: keep-alive`, and for
 * methods other than GET, HEAD, DELETE, OPTIONS, TRACE and CONNECT an empty chunked
 * body (test/http/kept-alive-client.test.ts checks this against Node's client).
 */
export function keptAliveRequestBytes(request: RawRequest, port: number): Buffer {
  const method = request.method ?? 'GET'
  let head = `${method} ${request.target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`
  for (const [name, value] of request.headers) head += `${name}: ${value}\r\n`
  head += BODILESS_IN_NODE.has(method) ? 'Connection: keep-alive\r\n\r\n' : 'Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
  return Buffer.from(head, 'latin1')
}

const STATUS_LINE = /^HTTP\/1\.1 (\d{3})(?: [^\r\n]*)?$/
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/
const CONTENT_LENGTH = /^\d+$/
/** Longer than any head an adapter sends: past it, the bytes are not an answer. */
const MAX_HEAD = 64 * 1024

/** Where a chunked body ends (its trailer section included), or -1 while incomplete; throws on a malformed one. */
function chunkedEnd(bytes: Buffer, start: number, parts: Buffer[]): number {
  let offset = start
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset)
    if (lineEnd < 0) return -1
    const sizeText = bytes.subarray(offset, lineEnd).toString('latin1').split(';', 1)[0]!
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new Error(`a malformed chunk size: ${JSON.stringify(sizeText)}`)
    const size = Number.parseInt(sizeText, 16)
    if (size === 0) {
      const trailerEnd = bytes.indexOf('\r\n\r\n', lineEnd)
      return trailerEnd < 0 ? -1 : trailerEnd + 4
    }
    if (bytes.length < lineEnd + 2 + size + 2) return -1
    if (bytes[lineEnd + 2 + size] !== 0x0d || bytes[lineEnd + 3 + size] !== 0x0a) throw new Error('a chunk not followed by CRLF')
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    offset = lineEnd + 2 + size + 2
  }
}

/** One answer parsed from the front of `bytes`, and where it ends. */
interface Parsed {
  readonly response: RawResponse
  /** Bytes used; `undefined` when the body runs to the connection's end (no length given). */
  readonly end: number | undefined
  /** The server ends the connection after it. */
  readonly close: boolean
}

/**
 * Parses the answer at the front of `bytes`, or `undefined` while incomplete; a
 * malformed status line, header line, length or chunk, or an interim answer, throws.
 * `head`: the answer to a HEAD request, which has no body whatever its headers say.
 */
function parseKeptAlive(bytes: Buffer, head: boolean): Parsed | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n')
  if (headEnd < 0) {
    if (bytes.length > MAX_HEAD) throw new Error(`no end of head in ${bytes.length} bytes`)
    return undefined
  }
  const [statusLine, ...headerLines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n')
  const status = STATUS_LINE.exec(statusLine!)?.[1]
  if (status === undefined) throw new Error(`a malformed status line: ${JSON.stringify(statusLine)}`)
  const headers: Record<string, string> = {}
  for (const line of headerLines) {
    const match = HEADER_LINE.exec(line)
    if (match === null) throw new Error(`a malformed header line: ${JSON.stringify(line)}`)
    const name = match[1]!.toLowerCase()
    headers[name] = name in headers ? `${headers[name]}, ${match[2]}` : match[2]!
  }
  const close = /(?:^|,)\s*close\s*(?:,|$)/i.test(headers.connection ?? '')
  const code = Number(status)
  if (code < 200) throw new Error(`an interim answer ${code}, never asked for`)
  const bodyStart = headEnd + 4
  const done = (body: Buffer, end: number | undefined): Parsed => ({ response: { status: code, headers, body }, end, close })
  if (head || code === 204 || code === 304) return done(Buffer.alloc(0), bodyStart)
  const transferEncoding = headers['transfer-encoding']
  const contentLength = headers['content-length']
  if (transferEncoding !== undefined) {
    if (transferEncoding.toLowerCase() !== 'chunked' || contentLength !== undefined)
      throw new Error(`framing Node's client refuses: Transfer-Encoding ${transferEncoding}, Content-Length ${contentLength}`)
    const parts: Buffer[] = []
    const end = chunkedEnd(bytes, bodyStart, parts)
    return end < 0 ? undefined : done(Buffer.concat(parts), end)
  }
  if (contentLength !== undefined) {
    if (!CONTENT_LENGTH.test(contentLength)) throw new Error(`a malformed Content-Length: ${contentLength}`)
    const end = bodyStart + Number(contentLength)
    return bytes.length < end ? undefined : done(bytes.subarray(bodyStart, end), end)
  }
  // No length: the body runs to the end of the connection, which the caller waits for.
  return { response: { status: code, headers, body: bytes.subarray(bodyStart) }, end: undefined, close: true }
}

/** A keep-alive connection that sends one request at a time: see {@link keptAliveClient}. */
export interface KeptAliveClient {
  /** Sends `request` (as {@link keptAliveRequestBytes}) and resolves with its answer. */
  send(request: RawRequest): Promise<RawResponse>
  /** Ends the connection. */
  close(): void
}

/**
 * A client that sends requests to 127.0.0.1:`port` one at a time over one kept-alive
 * connection, as Node's `http.request` with `new Agent({ keepAlive: true, maxSockets: 1 })`
 * does, for under half its CPU: the same bytes out ({@link keptAliveRequestBytes}), the
 * answer's status, headers (names lower-cased, repeats joined with `, `) and body, a
 * new connection once the server ended the last one. A malformed answer, one that does
 * not come complete within `timeoutMs`, a connection ended before it, or bytes nobody
 * asked for reject.
 */
export function keptAliveClient(port: number, timeoutMs = 10_000): KeptAliveClient {
  let socket: Socket | undefined
  let buffered: Buffer = Buffer.alloc(0)
  let pending: { head: boolean; resolve(response: RawResponse): void; reject(error: Error): void } | undefined
  let stray: Error | undefined

  const fail = (error: Error) => {
    const waiting = pending
    pending = undefined
    socket?.destroy()
    socket = undefined
    if (waiting === undefined) stray ??= error
    else waiting.reject(error)
  }
  const parse = (ended: boolean) => {
    if (pending === undefined) {
      if (buffered.length > 0) fail(new Error(`bytes nobody asked for: ${JSON.stringify(buffered.subarray(0, 200).toString('latin1'))}`))
      return
    }
    let parsed: Parsed | undefined
    try {
      parsed = parseKeptAlive(buffered, pending.head)
    } catch (error) {
      fail(error as Error)
      return
    }
    if (parsed === undefined || (parsed.end === undefined && !ended)) {
      if (ended) fail(new Error('the connection ended before a complete answer'))
      return
    }
    if (parsed.end !== undefined && parsed.end < buffered.length) {
      fail(
        new Error(`bytes nobody asked for after the answer: ${JSON.stringify(buffered.subarray(parsed.end, parsed.end + 200).toString('latin1'))}`),
      )
      return
    }
    const { resolve } = pending
    pending = undefined
    buffered = Buffer.alloc(0)
    if (parsed.close || ended) {
      socket?.destroy()
      socket = undefined
    }
    resolve(parsed.response)
  }
  const open = (): Socket => {
    const opened = connect({ host: '127.0.0.1', port })
    opened.setTimeout(timeoutMs, () => {
      if (socket !== opened) return
      if (pending === undefined) {
        opened.destroy()
        socket = undefined
      } else fail(new Error(`no complete answer within ${timeoutMs} ms`))
    })
    opened.on('data', (chunk: Buffer) => {
      if (socket !== opened) return
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
      parse(false)
    })
    opened.on('end', () => {
      if (socket !== opened) return
      if (pending !== undefined) return parse(true)
      // The server ended an idle connection: the next request opens another.
      opened.destroy()
      socket = undefined
      buffered = Buffer.alloc(0)
    })
    opened.on('close', () => {
      if (socket === opened) {
        socket = undefined
        buffered = Buffer.alloc(0)
        if (pending !== undefined) fail(new Error('the connection closed before a complete answer'))
      }
    })
    opened.on('error', (error) => {
      if (socket === opened) fail(error)
    })
    return opened
  }

  return {
    send(request) {
      return new Promise((resolve, reject) => {
        if (stray !== undefined) return reject(stray)
        if (pending !== undefined) return reject(new Error('one request at a time'))
        pending = { head: request.method === 'HEAD', resolve, reject }
        socket ??= open()
        socket.write(keptAliveRequestBytes(request, port))
      })
    },
    close() {
      socket?.destroy()
      socket = undefined
    },
  }
}
