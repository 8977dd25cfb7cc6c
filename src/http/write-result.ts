import type { ServerResponse } from 'node:http'
import { responseHeaders, type HttpResult } from './outcomes'

// The outcome table's bodies are frozen singletons, so each is serialised once.
const serialized = new WeakMap<object, string>()

/**
 * The exact body text of a passcode-auth answer. Every adapter sends this string, so
 * the bytes are the same whatever the framework (and whatever JSON settings the host
 * gave it).
 *
 * @example
 * ```ts
 * serializeBody(FAILURES.unknown_passcode) // '{"status":"fail","error":"Invalid Credentials","code":400}'
 * ```
 */
export function serializeBody(result: HttpResult): string {
  let text = serialized.get(result.body)
  if (text === undefined) {
    text = JSON.stringify(result.body)
    serialized.set(result.body, text)
  }
  return text
}

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
