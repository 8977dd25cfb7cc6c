import type { ServerResponse } from 'node:http'
import { answerBody, answerHeaders, type Answer } from '../answer'

/**
 * Writes a passcode-auth answer on a Node response: the status, its
 * {@link responseHeaders}, a `Content-Length` and the body. Used for Express, whose
 * `res` is a Node response; going around `res.send` keeps Express from adding an
 * ETag or answering 304.
 *
 * @example
 * ```ts
 * writeNodeResponse(res, FAILURES.unknown_passcode)
 * ```
 */
export function writeNodeResponse(response: ServerResponse, answer: Answer): void {
  response.statusCode = answer.statusCode
  const headers = answerHeaders(answer)
  for (const name in headers) response.setHeader(name, headers[name]!)
  const body = answerBody(answer)
  if (body === undefined) return void response.end()
  response.setHeader('content-length', Buffer.byteLength(body))
  response.end(body)
}
