/**
 * Web-standard `Request`/`Response` (Bun, Deno, Cloudflare Workers, Next.js route
 * handlers): `requirePasscode(auth, options?)` resolves the principal or the refusal
 * `Response`, `connectHandler(auth, options?)` answers `GET /v1/connect`,
 * `leakReportHandler(auth, options)` leak reports and `dashboard(auth, options)` the
 * dashboard: the names every adapter uses. No Node-only API.
 *
 * @module passcode-auth/fetch
 */
import type { ConnectHandlerOptions } from './connect-handler'
import type { DashboardMountOptions } from './dashboard'
export { requirePasscode } from './require-passcode'
export type { FetchPasscodeGuard, PasscodeCheck, RequirePasscodeOptions } from './require-passcode'
export { connectHandler } from './connect-handler'
export type { ConnectHandlerOptions, FetchHandler } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export { dashboard } from './dashboard'
export type { DashboardMountOptions } from './dashboard'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'

// The former names, kept so that nothing breaks: each is the same value or type.
/**
 * The options of the fetch {@link connectHandler} under their former name.
 *
 * @deprecated Use {@link ConnectHandlerOptions}, the name every adapter uses.
 * @example
 * ```ts
 * const options: FetchConnectOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export type FetchConnectOptions = ConnectHandlerOptions

/**
 * The options of the fetch {@link dashboard} under their former name.
 *
 * @deprecated Use {@link DashboardMountOptions}, the name every adapter uses.
 * @example
 * ```ts
 * const options: FetchDashboardOptions = { basePath: '/settings', session: (request) => sessionOf(request.headers.get('cookie')) }
 * ```
 */
export type FetchDashboardOptions = DashboardMountOptions
