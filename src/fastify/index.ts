/**
 * Fastify 4 and 5, as plugins: `passcodeAuthPlugin`, which decorates
 * `request.passcodeAuth`, adds the `app.requirePasscode` hook and registers
 * `GET /v1/connect` (and, with `leakReport`, the leak report route), and
 * `dashboardPlugin`, the dashboard under the prefix it is registered with.
 *
 * @module passcode-auth/fastify
 */
import type { DashboardMountOptions } from './dashboard-plugin'
export { passcodeAuthPlugin } from './plugin'
export type { PasscodeAuthPluginOptions, RequirePasscodeHook } from './plugin'
export type { CorsOptions } from '../http/cors'
export { PasscodeRefusedError } from '../http/refusal-error'
export type { Principal } from '../core/entities'
export { dashboardPlugin } from './dashboard-plugin'
export type { DashboardMountOptions } from './dashboard-plugin'
export { githubPublicKeys } from '../http/leaks/public-keys'
export type { LeakReportKey } from '../http/leaks/public-keys'
export type { LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'

// The former names, kept so that nothing breaks: each is the same value or type.
/**
 * The options of {@link dashboardPlugin} under their former name.
 *
 * @deprecated Use {@link DashboardMountOptions}, the name every adapter uses.
 * @example
 * ```ts
 * const options: DashboardPluginOptions = { auth, session: (request) => sessionOf(request) }
 * ```
 */
export type DashboardPluginOptions = DashboardMountOptions
