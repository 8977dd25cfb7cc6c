import type { Context } from 'koa'
import { answerBody, answerHeaders, type Answer } from '../http/answer'

/**
 * Sets a passcode-auth answer on a Koa context. The body is the pre-serialised
 * string with its Content-Type already set, so Koa sends the bytes untouched; a CORS
 * preflight has no body (`null` keeps Koa's 204 empty).
 */
export function respond(ctx: Context, answer: Answer): void {
  ctx.status = answer.statusCode
  ctx.set(answerHeaders(answer))
  ctx.body = answerBody(answer) ?? null
}
