/**
 * Fastify 4 and 5: `passcodeAuthPlugin`, which decorates `request.passcodeAuth`,
 * adds the `app.requirePasscode` preHandler and registers `GET /v1/connect`.
 *
 * @module passcode-auth/fastify
 */
import type { DashboardMountOptions } from './dashboard-plugin'
export { passcodeAuthPlugin } from './plugin'
export type { PasscodeAuthPluginOptions, RequirePasscodeHook } from './plugin'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export { dashboardPlugin } from './dashboard-plugin'
export type { DashboardMountOptions } from './dashboard-plugin'

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
