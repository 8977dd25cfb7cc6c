import { answerBody, answerHeaders, type Answer } from '../answer'

const encoder = new TextEncoder()
// Byte lengths of the outcome table's bodies, which are frozen singletons.
const byteLengths = new WeakMap<object, string>()

/**
 * A web-standard `Response` for a passcode-auth answer: the status, its headers, a
 * `Content-Length` and the exact body text every adapter sends. For `HEAD` the body is
 * left out and the `Content-Length` kept, as Node's servers do; a CORS preflight's 204
 * has neither.
 *
 * @param head - the request was `HEAD`
 * @example
 * ```ts
 * return fetchResponse(FAILURES.unknown_passcode, request.method === 'HEAD')
 * ```
 */
export function fetchResponse(answer: Answer, head = false): Response {
  const headers = new Headers(answerHeaders(answer))
  const body = answerBody(answer)
  if (body === undefined) return new Response(null, { status: answer.statusCode, headers })
  let length = byteLengths.get(answer.body!)
  if (length === undefined) {
    length = String(encoder.encode(body).byteLength)
    byteLengths.set(answer.body!, length)
  }
  headers.set('content-length', length)
  return new Response(head ? null : body, { status: answer.statusCode, headers })
}
