/**
 * Hono 4: `requirePasscode(auth)` middleware (principal on `c.var.passcodeAuth`, typed
 * through `ContextVariableMap`) and `connectHandler(auth)` for `GET /v1/connect`.
 *
 * @module passcode-auth/hono
 */
export { requirePasscode } from './require-passcode'
export type { HonoAdapterOptions } from './reader'
export { connectHandler } from './connect-handler'
export type { HonoConnectOptions } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'
