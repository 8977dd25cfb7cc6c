import { InvalidOptionsError } from '../core/errors'
import { assertPasscodeAuth, checkAdapterOptions } from '../http/adapter-options'
import type { CorsOptions } from '../http/cors'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of `PasscodeAuthModule.forRoot` (and what `forRootAsync`'s factory returns).
 *
 * @example
 * ```ts
 * const options: PasscodeAuthModuleOptions = { auth, cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export interface PasscodeAuthModuleOptions {
  /** What `createPasscodeAuth` returned. */
  readonly auth: PasscodeAuth
  /**
   * Whether the module answers `GET /v1/connect` (and `HEAD`; every other method gets
   * 405 with `Allow: GET, HEAD`), as a Nest middleware on that path, under the
   * application's global prefix if it has one.
   * @default true
   */
  readonly connectRoute?: boolean
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default off */
  readonly cors?: CorsOptions
}

/**
 * The injection token of the module's checked options.
 *
 * @internal
 */
export const PASSCODE_AUTH_MODULE_OPTIONS: unique symbol = Symbol.for('passcode-auth/nestjs module options')

/**
 * The injection token of the service the module was given: inject it where a provider
 * manages passcodes (`@Inject(PASSCODE_AUTH) auth: PasscodeAuth`), also when the
 * module was made by `forRootAsync`.
 *
 * @example
 * ```ts
 * class PasscodesService {
 *   constructor(@Inject(PASSCODE_AUTH) private readonly auth: PasscodeAuth) {}
 * }
 * ```
 */
export const PASSCODE_AUTH: unique symbol = Symbol.for('passcode-auth/nestjs auth')

/**
 * Checks the module's options when the module is made (or when `forRootAsync`'s
 * factory resolves): a bad one fails the application's start, not its first request.
 *
 * @internal
 */
export function checkModuleOptions(options: unknown): PasscodeAuthModuleOptions {
  if (options === undefined) throw new InvalidOptionsError('options', 'PasscodeAuthModule needs { auth }')
  const checked = checkAdapterOptions(options, 'PasscodeAuthModule', {
    auth: () => undefined, // checked below, also when absent
    connectRoute: (value) => (value === undefined || typeof value === 'boolean' ? undefined : 'must be a boolean'),
    cors: () => undefined, // checked by createConnectRequest
  }) as PasscodeAuthModuleOptions
  assertPasscodeAuth(checked.auth, 'PasscodeAuthModule')
  return checked
}
