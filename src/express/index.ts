/**
 * Express 4 and 5: `requirePasscode(auth, options?)` middleware (principal on
 * `req.passcodeAuth`), `connectHandler(auth, options?)` for `GET /v1/connect`,
 * `leakReportHandler(auth, options)` for leak reports and `dashboard(auth, options)`:
 * the names every adapter uses.
 *
 * @module passcode-auth/express
 */
import type { DashboardMountOptions } from './dashboard'
export { requirePasscode } from './require-passcode'
export type { RequirePasscodeOptions } from './require-passcode'
export { connectHandler } from './connect-handler'
export type { ConnectHandlerOptions } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export { PasscodeRefusedError } from '../http/refusal-error'
export type { Principal } from '../core/entities'
export { dashboard } from './dashboard'
export type { DashboardMountOptions, ExpressDashboardHandlers } from './dashboard'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'

// The former names, kept so that nothing breaks: each is the same value or type.
/**
 * The options of the Express {@link dashboard} under their former name.
 *
 * @deprecated Use {@link DashboardMountOptions}, the name every adapter uses.
 * @example
 * ```ts
 * const options: ExpressDashboardOptions = { session: (req) => sessions.get(req.get('cookie') ?? '') }
 * ```
 */
export type ExpressDashboardOptions = DashboardMountOptions
