import { ConfigurationError } from '../core/errors'
import { NO_PEPPER_ID } from '../core/hashing'
import { pepperReport, resolvePeppers, type PepperReport } from './authenticate/peppers'
import { DAY_MS } from '../core/time'
import type { Invalidation } from '../ports/passcode-store'
import { createAccountsApi, type AccountsApi } from './accounts'
import { withAdapterHints } from './adapter-hints'
import { createAuthenticate, createAuthenticateCached, type AuthOutcome, type CredentialsInput } from './authenticate/authenticate'
import { RefusalCache } from './authenticate/refusal-cache'
import { SharedReads } from './authenticate/shared-reads'
import { createConnect, type ConnectInput, type ConnectResult } from './connect/connect'
import type { CredentialRead, OwnerRefusal, ServiceContext } from './context'
import { createEmitter } from './events'
import type { NotificationReport } from './notifier/notification-report'
import { createNotifyExpirations } from './notifier/notify-expirations'
import { resolveOptions, type PasscodeAuthOptions } from './options'
import { staticPartners } from './connect/partners'
import { createPartnersApi, type PartnersApi } from './connect/partners-api'
import { createPasscodesApi, type PasscodesApi } from './passcodes/passcodes'
import { createLimiter } from './limiter/rate-limit'
import { UsageRecorder } from './usage/usage-recorder'
import { createUserPasscodeCrypto } from './user-passcodes/user-passcode-crypto'
import { createUserPasscodesApi, type UserPasscodesApi } from './user-passcodes/user-passcodes'
import { createTelemetry } from './telemetry/telemetry'
import { traceAuthenticate, traceConnect } from './telemetry/traced-operations'
import { traceStore } from './telemetry/traced-store'
import { VerificationCache } from './authenticate/verification-cache'

/** A configured passcode-auth service: what {@link createPasscodeAuth} returns. */
export interface PasscodeAuth {
  /** Account passcodes: create, update, delete, list. */
  readonly passcodes: PasscodesApi
  /** User passcodes: grant, reset, revoke, reveal. */
  readonly userPasscodes: UserPasscodesApi
  /** Account settings. */
  readonly accounts: AccountsApi
  /** The operator's partner whitelist, read-only. */
  readonly partners: PartnersApi
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
  /**
   * How many stored hashes the current pepper and each older one of the `pepper` list
   * key, and how many were made by a pepper not known (SPEC §5.28): an older pepper can
   * be removed once its count and `unknown` are 0. Throws a `ConfigurationError` when
   * the store cannot count (no `countHashesByPepper`).
   */
  pepperReport(): Promise<PepperReport>
  /**
   * Stops listening to store invalidations and every timer of this instance, and
   * writes the last uses it has not flushed yet (SPEC §5.27), retrying a failed write
   * once. Call it before closing the store; the store itself stays open. Idempotent:
   * a second call, or one made while the first runs, returns the same promise.
   */
  close(): Promise<void>
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
  const warnWithinMs = resolved.sunsetHeader ? resolved.limits.expiringSoonDays * DAY_MS : undefined
  const cache = resolved.cache === false ? undefined : new VerificationCache({ ...resolved.cache, warnWithinMs })
  const refusals = resolved.cache === false || resolved.cache.refusals === false ? undefined : new RefusalCache<OwnerRefusal>(resolved.cache.refusals)
  const reads = new SharedReads<CredentialRead>()
  const invalidate = (invalidation: Invalidation): void => {
    reads.invalidate()
    cache?.invalidate(invalidation)
    refusals?.invalidate(invalidation)
  }
  const partners = Array.isArray(resolved.partners) ? staticPartners(resolved.partners) : resolved.partners
  const emit = createEmitter(resolved.onEvent, now)
  const usage = resolved.usage === false ? undefined : new UsageRecorder(resolved.store, resolved.usage, emit, now)
  const telemetry = createTelemetry(resolved.telemetry)

  const peppers = resolvePeppers(resolved.pepper)
  const context: ServiceContext = {
    options: resolved,
    store: telemetry === undefined ? resolved.store : traceStore(telemetry, resolved.store),
    partners: partners as ServiceContext['partners'],
    hash: peppers.current.hash,
    peppers,
    now,
    cache,
    refusals,
    reads,
    crypto: createUserPasscodeCrypto(resolved.encryptionKeys),
    emit,
    telemetry,
    invalidate,
    usage,
  }
  if (peppers.current.id === NO_PEPPER_ID && globalThis.process?.env?.NODE_ENV === 'production') {
    context.emit?.({
      type: 'config.no_pepper',
      message: 'NODE_ENV is production and passcode hashes are plain SHA-256: set the pepper option (a list to add one to a running deployment, SPEC §5.28)',
    })
  }
  const unsubscribe = cache !== undefined ? resolved.store.subscribe?.(invalidate) : undefined
  const limiter = resolved.rateLimit === false ? undefined : createLimiter(context, resolved.rateLimit)
  const limited = limiter === undefined ? createAuthenticate(context) : limiter.limit(createAuthenticate(context))
  // For the HTTP adapters: they read the request's address only when the limiter
  // counts by address, so a service without it pays nothing for it; and they take
  // the synchronous cache-hit path, behind the limiter's gate when there is one (a
  // limited address must get its 429 even for cached credentials).
  const usesClientAddress = resolved.rateLimit !== false && resolved.rateLimit.maxFailuresPerAddress !== false
  const cachedHit = createAuthenticateCached(context)
  const cached = limiter === undefined ? cachedHit : limiter.gate(cachedHit)
  const traced = telemetry === undefined ? limited : traceAuthenticate(telemetry, limited)
  // The public function takes the input only: what a caller passes second is not a budget.
  const authenticate = withAdapterHints((input: CredentialsInput) => traced(input), { usesClientAddress, cached })
  const connect = createConnect(context, traced)

  let closing: Promise<void> | undefined
  const auth: PasscodeAuth = {
    passcodes: createPasscodesApi(context),
    userPasscodes: createUserPasscodesApi(context),
    accounts: createAccountsApi(context),
    partners: createPartnersApi(context),
    authenticate,
    connect: withAdapterHints(telemetry === undefined ? connect : traceConnect(telemetry, connect), { usesClientAddress }),
    notifyExpirations: createNotifyExpirations(context),
    async pepperReport() {
      const report = await pepperReport(resolved.store, peppers)
      if (report === undefined) throw new ConfigurationError('The passcode store cannot count its hashes by pepper (no countHashesByPepper)')
      return report
    },
    close() {
      closing ??= (async () => {
        unsubscribe?.()
        await usage?.close()
      })()
      return closing
    },
  }
  return auth
}
