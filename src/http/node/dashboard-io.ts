import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { MAX_BODY_BYTES } from '../management/read-json'
import type { DashboardBody, DashboardResponse } from '../management/types'

/** A header of a Node request as one string; a repeated one joined with `", "`. */
export function nodeHeader(headers: IncomingHttpHeaders, lowerCaseName: string): string | undefined {
  const value = headers[lowerCaseName]
  return Array.isArray(value) ? value.join(', ') : value
}

/**
 * Reads a Node request's body as UTF-8 text, keeping at most `MAX_BODY_BYTES + 1`
 * bytes (more is drained, not kept), so that the management API answers 413 for an
 * oversized body without holding it in memory.
 */
export function readNodeBody(request: IncomingMessage): Promise<DashboardBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let kept = 0
    request.on('data', (chunk: Buffer) => {
      if (kept > MAX_BODY_BYTES) return
      chunks.push(chunk)
      kept += chunk.length
    })
    request.once('end', () => resolve(kept === 0 ? undefined : { text: Buffer.concat(chunks).toString('utf8') }))
    request.once('error', reject)
  })
}

/** The body of a Node request that a body parser (Express, Koa) may already have read. */
export function nodeBody(request: IncomingMessage, parsed: () => unknown): Promise<DashboardBody> {
  // body-parser marks the request `_body` once it has parsed it; the stream is then empty.
  if ((request as { _body?: unknown })._body === true || request.readableEnded) {
    const value = parsed()
    return Promise.resolve(value === undefined ? undefined : { parsed: value })
  }
  return readNodeBody(request)
}

/** Writes a dashboard answer on a Node response (Express; Koa via `ctx.res` is not used). */
export function writeNodeDashboardResponse(response: ServerResponse, answer: DashboardResponse, head: boolean): void {
  response.statusCode = answer.statusCode
  for (const name in answer.headers) response.setHeader(name, answer.headers[name]!)
  if (answer.statusCode === 204) {
    response.end()
    return
  }
  response.setHeader('content-length', Buffer.byteLength(answer.body))
  response.end(head ? undefined : answer.body)
}
