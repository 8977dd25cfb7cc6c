/**
 * Express 4 and 5: `requirePasscode(auth)` middleware (principal on
 * `req.passcodeAuth`) and `connectHandler(auth)` for `GET /v1/connect`.
 *
 * @module passcode-auth/express
 */
export { requirePasscode } from './require-passcode'
export type { RequirePasscodeOptions } from './require-passcode'
export { connectHandler } from './connect-handler'
export type { ConnectHandlerOptions } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export { PasscodeRefusedError } from '../http/refusal-error'
export type { Principal } from '../core/entities'
export { dashboard } from './dashboard'
export type { ExpressDashboardHandlers, ExpressDashboardOptions } from './dashboard'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'
