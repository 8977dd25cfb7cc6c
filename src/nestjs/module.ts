import {
  Inject,
  Module,
  RequestMethod,
  type DynamicModule,
  type InjectionToken,
  type MiddlewareConsumer,
  type ModuleMetadata,
  type NestModule,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common'
import { APP_FILTER } from '@nestjs/core'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { connectHandler } from './connect-handler'
import { PasscodeAuthGuard } from './guard'
import { checkModuleOptions, PASSCODE_AUTH, PASSCODE_AUTH_MODULE_OPTIONS, type PasscodeAuthModuleOptions } from './options'
import { PasscodeRefusedFilter } from './refused-filter'

/**
 * Options of `PasscodeAuthModule.forRootAsync`: the module's options made by a factory,
 * from providers of the modules it imports.
 *
 * @example
 * ```ts
 * const options: PasscodeAuthModuleAsyncOptions = {
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ auth: createPasscodeAuth({ store: memoryStore(), partners: config.partners }) }),
 * }
 * ```
 */
export interface PasscodeAuthModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Providers whose instances `useFactory` gets, in order. */
  readonly inject?: readonly (InjectionToken | OptionalFactoryDependency)[]
  /** Makes the module's options; may return a promise. */
  readonly useFactory: (...args: never[]) => PasscodeAuthModuleOptions | Promise<PasscodeAuthModuleOptions>
}

// What both forRoot and forRootAsync provide, around the options' provider.
const shared: Provider[] = [
  { provide: PASSCODE_AUTH, inject: [PASSCODE_AUTH_MODULE_OPTIONS], useFactory: (options: PasscodeAuthModuleOptions): PasscodeAuth => options.auth },
  { provide: APP_FILTER, useClass: PasscodeRefusedFilter },
  PasscodeAuthGuard,
]

/**
 * passcode-auth in a Nest application (SPEC §5.55), on `@nestjs/platform-express` or
 * `@nestjs/platform-fastify`: import it once, in the root module, with `forRoot` or
 * `forRootAsync`. It is global: every module can use `PasscodeAuthGuard`,
 * `@RequireScopes`, `@PasscodePrincipal()` and inject the service as `PASSCODE_AUTH`.
 * It answers `GET /v1/connect` (unless `connectRoute: false`) and registers
 * `PasscodeRefusedFilter`, which answers the guard's refusals byte for byte.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [PasscodeAuthModule.forRoot({ auth: createPasscodeAuth({ store: memoryStore(), partners: ['acme'] }) })],
 *   controllers: [EventsController],
 * })
 * class AppModule {}
 * ```
 */
@Module({})
export class PasscodeAuthModule implements NestModule {
  readonly #options: PasscodeAuthModuleOptions

  constructor(@Inject(PASSCODE_AUTH_MODULE_OPTIONS) options: PasscodeAuthModuleOptions) {
    this.#options = options
  }

  /**
   * The module with its options, checked at once (an `InvalidOptionsError` names a bad one).
   *
   * @param options - `auth` (required), `connectRoute`, `cors`
   * @example
   * ```ts
   * PasscodeAuthModule.forRoot({ auth, cors: { origins: ['https://dashboard.partner.example'] } })
   * ```
   */
  static forRoot(options: PasscodeAuthModuleOptions): DynamicModule {
    const checked = checkModuleOptions(options)
    return {
      module: PasscodeAuthModule,
      global: true,
      providers: [{ provide: PASSCODE_AUTH_MODULE_OPTIONS, useValue: checked }, ...shared],
      exports: [PASSCODE_AUTH, PasscodeAuthGuard],
    }
  }

  /**
   * The module with options made by a factory (from a configuration service, say),
   * checked when it resolves: a bad one fails the application's start.
   *
   * @param options - `useFactory`, and the `inject` and `imports` it needs
   * @example
   * ```ts
   * PasscodeAuthModule.forRootAsync({ inject: [AuthConfig], useFactory: (config: AuthConfig) => ({ auth: config.auth }) })
   * ```
   */
  static forRootAsync(options: PasscodeAuthModuleAsyncOptions): DynamicModule {
    const { imports = [], inject = [], useFactory } = options
    // The factory's own arguments are checked by Nest; what it returns, here.
    return {
      module: PasscodeAuthModule,
      global: true,
      imports,
      providers: [
        {
          provide: PASSCODE_AUTH_MODULE_OPTIONS,
          inject: [...inject],
          useFactory: async (...args: never[]) => checkModuleOptions(await useFactory(...args)),
        },
        ...shared,
      ],
      exports: [PASSCODE_AUTH, PasscodeAuthGuard],
    }
  }

  /** Mounts `GET /v1/connect` unless `connectRoute: false`; Nest calls it. */
  configure(consumer: MiddlewareConsumer): void {
    const { auth, connectRoute, cors } = this.#options
    if (connectRoute === false) return
    consumer.apply(connectHandler(auth, { cors })).forRoutes({ path: 'v1/connect', method: RequestMethod.ALL })
  }
}
