/**
 * Koa 2 and 3: `requirePasscode(auth)` (principal on `ctx.state.passcodeAuth`) and
 * `connectMiddleware(auth)` for `GET /v1/connect`.
 *
 * @module passcode-auth/koa
 */
export { requirePasscode } from './require-passcode'
export { connectMiddleware } from './connect-middleware'
export type { ConnectMiddlewareOptions } from './connect-middleware'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export { dashboard } from './dashboard'
export type { KoaDashboardOptions } from './dashboard'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'
