import { responseHeaders, type HttpResult } from '../protocol/outcomes'
import type { PreflightAnswer } from './cors'
import { serializeBody } from './serialize-body'

/** What an adapter writes: a passcode-auth result, or the body-less 204 of a CORS preflight. */
export type Answer = HttpResult | PreflightAnswer

/**
 * Every header of an answer: {@link responseHeaders} for a result, the preflight's own
 * for a preflight (no `Content-Type`: it has no body).
 *
 * @example
 * ```ts
 * for (const [name, value] of Object.entries(answerHeaders(answer))) res.setHeader(name, value)
 * ```
 */
export function answerHeaders(answer: Answer): Readonly<Record<string, string>> {
  return answer.body === undefined ? answer.headers : responseHeaders(answer)
}

/**
 * The body text of an answer: {@link serializeBody} for a result, `undefined` for a
 * preflight, which has none (adapters then send no body and no `Content-Length`).
 *
 * @example
 * ```ts
 * const body = answerBody(answer)
 * body === undefined ? res.end() : res.end(body)
 * ```
 */
export function answerBody(answer: Answer): string | undefined {
  return answer.body === undefined ? undefined : serializeBody(answer)
}
