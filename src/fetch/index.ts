/**
 * Web-standard `Request`/`Response` (Bun, Deno, Cloudflare Workers, Next.js route
 * handlers): `requirePasscode(auth)` resolves the principal or the refusal `Response`,
 * `connectHandler(auth)` answers `GET /v1/connect`. No Node-only API.
 *
 * @module passcode-auth/fetch
 */
export { requirePasscode } from './require-passcode'
export type { FetchPasscodeGuard, PasscodeCheck } from './require-passcode'
export { connectHandler } from './connect-handler'
export type { FetchConnectOptions, FetchHandler } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export { dashboard } from './dashboard'
export type { FetchDashboardOptions } from './dashboard'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'
