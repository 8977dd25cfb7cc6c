import { createPasscodeHasher } from '../core/hashing'
import type { Invalidation } from '../ports/passcode-store'
import { createAccountsApi, type AccountsApi } from './accounts'
import {
  AUTHENTICATE_CACHED,
  createAuthenticate,
  createAuthenticateCached,
  type AuthOutcome,
  type CachedPath,
  type CredentialsInput,
} from './authenticate'
import { createConnect, type ConnectInput, type ConnectResult } from './connect'
import type { ServiceContext } from './context'
import { createEmitter } from './events'
import type { NotificationReport } from './notification-report'
import { createNotifyExpirations } from './notify-expirations'
import { resolveOptions, type PasscodeAuthOptions } from './options'
import { staticPartners } from './partners'
import { createPasscodesApi, type PasscodesApi } from './passcodes'
import { withRateLimit } from './rate-limit'
import { createUserPasscodeCrypto } from './user-passcode-crypto'
import { createUserPasscodesApi, type UserPasscodesApi } from './user-passcodes'
import { VerificationCache } from './verification-cache'

/** A configured passcode-auth service: what {@link createPasscodeAuth} returns. */
export interface PasscodeAuth {
  /** Account passcodes: create, update, delete, list. */
  readonly passcodes: PasscodesApi
  /** User passcodes: grant, reset, revoke, reveal. */
  readonly userPasscodes: UserPasscodesApi
  /** Account settings. */
  readonly accounts: AccountsApi
  /** Verifies credentials; resolves an outcome and never throws for bad credentials. */
  authenticate(input: CredentialsInput): Promise<AuthOutcome>
  /** `GET /v1/connect` without HTTP: the status code and body to send. */
  connect(input: ConnectInput): Promise<ConnectResult>
  /**
   * One expiry-notifier pass (SPEC §5.14): emails the `recipients` of every account
   * passcode that entered the 30-day window or expired, once per expiry instant, and
   * reports what it sent, what failed (retried on the next pass) and what it skipped.
   * Throws a `ConfigurationError` without a `mailer` or `recipients` option, and a
   * storage error when the store fails. Run it on a schedule with `startExpiryNotifier`.
   */
  notifyExpirations(): Promise<NotificationReport>
  /** Stops listening to store invalidations. The store itself stays open. */
  close(): Promise<void>
  /**
   * Whether `authenticate` and `connect` use `clientAddress` (the `rateLimit` option
   * limits failures per address). The HTTP adapters read the request's address only
   * then, so a service without the limiter pays nothing for it.
   */
  readonly usesClientAddress: boolean
}

/**
 * Creates the passcode-auth service over a store (SPEC §1). Options are validated at
 * once; a bad one throws an `InvalidOptionsError` that names it.
 *
 * @param options - see {@link PasscodeAuthOptions}
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { memoryStore } from 'passcode-auth/memory'
 *
 * const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })
 * const admin = { userId: 'u_admin', role: 'admin' } as const
 * const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
 * const outcome = await auth.authenticate({ accountId: 'acc_1', passcode: value })
 * // outcome.ok === true, outcome.principal.kind === 'account'
 * ```
 */
export function createPasscodeAuth(options: PasscodeAuthOptions): PasscodeAuth {
  const resolved = resolveOptions(options)
  const clock = resolved.clock
  const now = clock === undefined ? Date.now : () => clock().getTime()
  const cache = resolved.cache === false ? undefined : new VerificationCache(resolved.cache)
  const invalidate = (invalidation: Invalidation): void => cache?.invalidate(invalidation)
  const partners = Array.isArray(resolved.partners) ? staticPartners(resolved.partners) : resolved.partners

  const context: ServiceContext = {
    options: resolved,
    store: resolved.store,
    partners: partners as ServiceContext['partners'],
    hash: createPasscodeHasher(resolved.pepper),
    now,
    cache,
    crypto: createUserPasscodeCrypto(resolved.encryptionKeys),
    emit: createEmitter(resolved.onEvent, now),
    invalidate,
  }
  const unsubscribe = cache !== undefined ? resolved.store.subscribe?.(invalidate) : undefined
  const authenticate = withRateLimit(context, createAuthenticate(context), resolved.rateLimit)

  const auth: PasscodeAuth = {
    passcodes: createPasscodesApi(context),
    userPasscodes: createUserPasscodesApi(context),
    accounts: createAccountsApi(context),
    authenticate,
    connect: createConnect(context, authenticate),
    notifyExpirations: createNotifyExpirations(context),
    async close() {
      unsubscribe?.()
    },
    usesClientAddress: resolved.rateLimit !== false && resolved.rateLimit.maxFailuresPerAddress !== false,
  }
  // The adapters' synchronous warm path; the limiter may refuse even cached
  // credentials (429), so with it on every request takes the full path.
  const cached = resolved.rateLimit === false ? createAuthenticateCached(context) : undefined
  if (cached !== undefined) Object.defineProperty(auth, AUTHENTICATE_CACHED, { value: { authenticate, cached } satisfies CachedPath })
  return auth
}
