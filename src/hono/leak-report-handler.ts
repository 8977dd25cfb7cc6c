import type { Handler } from 'hono'
import { createLeakReport, type LeakReportOptions } from '../http/leaks/leak-report'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * The leak report endpoint (SPEC §5.42) for Hono 4: GitHub's signed secret scanning
 * reports, answered as in every entry point (see the fetch entry's `leakReportHandler`).
 * It reads the raw request body, so no validator or middleware may read it first.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `publicKeys`: `[{ id, pem }]` or a function returning them
 * @example
 * ```ts
 * app.post('/v1/leaks', leakReportHandler(auth, { publicKeys }))
 * ```
 */
export function leakReportHandler(auth: PasscodeAuth, options: LeakReportOptions): Handler {
  const leakReport = createLeakReport(auth, options)
  return async function leakReportRequestHandler(c) {
    const request = c.req.raw
    const answer = await leakReport({
      header: (name) => request.headers.get(name) ?? undefined,
      method: request.method,
      body: request.bodyUsed ? 'parsed' : request.body,
    })
    return new Response(answer.body, { status: answer.statusCode, headers: new Headers(answer.headers) })
  }
}
