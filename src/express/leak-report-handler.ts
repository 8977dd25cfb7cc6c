import type { RequestHandler } from 'express'
import { createLeakReport, type LeakReportOptions } from '../http/leaks/leak-report'
import { nodeLeakReportInput, writeLeakAnswer } from '../http/node/leak-report-io'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * The leak report endpoint (SPEC §5.42) for Express 4 and 5: GitHub's signed secret
 * scanning reports, answered as in every entry point (see the fetch entry's
 * `leakReportHandler`). Mount it before any body parser (the signature covers the raw
 * bytes), or after `express.raw()`, whose `Buffer` it uses.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `publicKeys`: `[{ id, pem }]` or a function returning them
 * @example
 * ```ts
 * app.post('/v1/leaks', leakReportHandler(auth, { publicKeys }))
 * ```
 */
export function leakReportHandler(auth: PasscodeAuth, options: LeakReportOptions): RequestHandler {
  const leakReport = createLeakReport(auth, options)
  return function leakReportRequestHandler(req, res, next) {
    leakReport(nodeLeakReportInput(req, (req as { body?: unknown }).body)).then((answer) => writeLeakAnswer(res, answer), next)
  }
}
