import type { Middleware } from 'koa'
import { createLeakReport, type LeakReportOptions } from '../http/leaks/leak-report'
import { nodeLeakReportInput } from '../http/node/leak-report-io'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * The leak report endpoint (SPEC §5.42) for Koa 2 and 3: GitHub's signed secret
 * scanning reports, answered as in every entry point (see the fetch entry's
 * `leakReportHandler`). It always answers; route `POST /v1/leaks` to it ahead of any
 * body parser (the signature covers the raw bytes).
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `publicKeys`: `[{ id, pem }]` or a function returning them
 * @example
 * ```ts
 * const leaks = leakReportHandler(auth, { publicKeys })
 * app.use((ctx, next) => (ctx.path === '/v1/leaks' ? leaks(ctx, next) : next()))
 * ```
 */
export function leakReportHandler(auth: PasscodeAuth, options: LeakReportOptions): Middleware {
  const leakReport = createLeakReport(auth, options)
  return async function leakReportMiddleware(ctx) {
    const answer = await leakReport(nodeLeakReportInput(ctx.req, (ctx.request as { body?: unknown }).body))
    ctx.status = answer.statusCode
    ctx.set(answer.headers)
    ctx.body = answer.body
  }
}
