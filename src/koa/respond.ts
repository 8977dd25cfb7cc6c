import type { Context } from 'koa'
import { responseHeaders, type HttpResult } from '../protocol/outcomes'
import { serializeBody } from '../http/serialize-body'

/**
 * Sets a passcode-auth answer on a Koa context. The body is the pre-serialised
 * string with its Content-Type already set, so Koa sends the bytes untouched.
 */
export function respond(ctx: Context, result: HttpResult): void {
  ctx.status = result.statusCode
  ctx.set(responseHeaders(result))
  ctx.body = serializeBody(result)
}
