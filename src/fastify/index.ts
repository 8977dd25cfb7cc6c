/**
 * Fastify 4 and 5: `passcodeAuthPlugin`, which decorates `request.passcodeAuth`,
 * adds the `app.requirePasscode` preHandler and registers `GET /v1/connect`.
 *
 * @module passcode-auth/fastify
 */
export { passcodeAuthPlugin } from './plugin'
export type { PasscodeAuthPluginOptions, RequirePasscodeHook } from './plugin'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export { dashboardPlugin } from './dashboard-plugin'
export type { DashboardPluginOptions } from './dashboard-plugin'
