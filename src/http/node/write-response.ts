import type { ServerResponse } from 'node:http'
import { responseHeaders, type HttpResult } from '../../protocol/outcomes'
import { serializeBody } from '../serialize-body'

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
export function writeNodeResponse(response: ServerResponse, result: HttpResult): void {
  const body = serializeBody(result)
  response.statusCode = result.statusCode
  const headers = responseHeaders(result)
  for (const name in headers) response.setHeader(name, headers[name]!)
  response.setHeader('content-length', Buffer.byteLength(body))
  response.end(body)
}
