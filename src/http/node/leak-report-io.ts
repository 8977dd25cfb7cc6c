import type { IncomingMessage, ServerResponse } from 'node:http'
import type { LeakReportAnswer, LeakReportInput } from '../leaks/leak-report'

/**
 * A Node request as a leak report input. `preread` is what a framework's body parser
 * left on the request, if anything: a `Buffer` (a raw-body parser) is used as the body;
 * any other value means the raw bytes are gone.
 */
export function nodeLeakReportInput(request: IncomingMessage, preread?: unknown): LeakReportInput {
  const body = preread instanceof Uint8Array ? preread : preread !== undefined || request.readableEnded ? 'parsed' : request
  return { header: (name) => request.headers[name], method: request.method, body }
}

/** Writes a leak report answer on a Node response. */
export function writeLeakAnswer(response: ServerResponse, answer: LeakReportAnswer): void {
  response.statusCode = answer.statusCode
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value)
  response.setHeader('content-length', Buffer.byteLength(answer.body))
  response.end(answer.body)
}
