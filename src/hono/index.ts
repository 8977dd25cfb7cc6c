/**
 * Hono 4: `requirePasscode(auth, options?)` middleware (principal on `c.var.passcodeAuth`,
 * typed through `ContextVariableMap`), `connectHandler(auth, options?)` for
 * `GET /v1/connect`, `leakReportHandler(auth, options)` for leak reports and
 * `dashboard(auth, options)`: the names every adapter uses.
 *
 * @module passcode-auth/hono
 */
import type { ConnectHandlerOptions } from './connect-handler'
import type { RequirePasscodeOptions } from './require-passcode'
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
 * The options of the Hono {@link requirePasscode} under their former name.
 *
 * @deprecated Use {@link RequirePasscodeOptions} (and `ConnectHandlerOptions` for `connectHandler`), the names every adapter uses.
 * @example
 * ```ts
 * const options: HonoAdapterOptions = { clientAddress: (c) => c.req.header('x-real-ip') }
 * ```
 */
export type HonoAdapterOptions = RequirePasscodeOptions

/**
 * The options of the Hono {@link connectHandler} under their former name.
 *
 * @deprecated Use {@link ConnectHandlerOptions}, the name every adapter uses.
 * @example
 * ```ts
 * const options: HonoConnectOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export type HonoConnectOptions = ConnectHandlerOptions
