/**
 * Koa 2 and 3: `requirePasscode(auth, options?)` (principal on `ctx.state.passcodeAuth`),
 * `connectHandler(auth, options?)` for `GET /v1/connect`, `leakReportHandler(auth,
 * options)` for leak reports and `dashboard(auth, options)`: the names every adapter uses.
 *
 * @module passcode-auth/koa
 */
import { connectHandler, type ConnectHandlerOptions } from './connect-handler'
import type { DashboardMountOptions } from './dashboard'
export { requirePasscode } from './require-passcode'
export type { RequirePasscodeOptions } from './require-passcode'
export { connectHandler } from './connect-handler'
export type { ConnectHandlerOptions } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export { PasscodeRefusedError } from '../http/refusal-error'
export type { Principal } from '../core/entities'
export { dashboard } from './dashboard'
export type { DashboardMountOptions } from './dashboard'
export { leakReportHandler } from './leak-report-handler'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'

// The former names, kept so that nothing breaks: each is the same value or type.
/**
 * The Koa {@link connectHandler} under its former name: the same function.
 *
 * @deprecated Use {@link connectHandler}, the name every adapter uses.
 * @example
 * ```ts
 * const connect = connectMiddleware(auth) // same as connectHandler(auth)
 * ```
 */
export const connectMiddleware: typeof connectHandler = connectHandler

/**
 * The options of {@link connectHandler} under their former name.
 *
 * @deprecated Use {@link ConnectHandlerOptions}.
 * @example
 * ```ts
 * const options: ConnectMiddlewareOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export type ConnectMiddlewareOptions = ConnectHandlerOptions

/**
 * The options of the Koa {@link dashboard} under their former name.
 *
 * @deprecated Use {@link DashboardMountOptions}, the name every adapter uses.
 * @example
 * ```ts
 * const options: KoaDashboardOptions = { basePath: '/settings', session: (ctx) => ctx.state.session }
 * ```
 */
export type KoaDashboardOptions = DashboardMountOptions
