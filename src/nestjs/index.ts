/**
 * NestJS (SPEC §5.55), on `@nestjs/platform-express` and `@nestjs/platform-fastify`:
 * `PasscodeAuthModule.forRoot({ auth })` (or `forRootAsync`) mounts `GET /v1/connect`,
 * `PasscodeAuthGuard` protects a handler or a controller, `@RequireScopes(…)` states
 * the scopes a route needs and `@PasscodePrincipal()` hands the handler who called.
 * Refusals are thrown as `PasscodeRefusedException` and answered byte for byte by
 * `PasscodeRefusedFilter`, as every other adapter answers them.
 *
 * @module passcode-auth/nestjs
 */
export { PasscodeAuthModule } from './module'
export type { PasscodeAuthModuleAsyncOptions } from './module'
export { PASSCODE_AUTH } from './options'
export type { PasscodeAuthModuleOptions } from './options'
export { PasscodeAuthGuard } from './guard'
export { RequireScopes } from './require-scopes'
export { PasscodePrincipal } from './passcode-principal'
export { PasscodeRefusedException } from './refused-exception'
export { PasscodeRefusedFilter } from './refused-filter'
export { connectHandler } from './connect-handler'
export type { ConnectHandlerOptions, MiddlewareRequest } from './connect-handler'
export type { CorsOptions } from '../http/cors'
export type { Principal } from '../core/entities'
export type { PasscodeAuth } from '../service/create-passcode-auth'
