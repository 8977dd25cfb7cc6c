import { ConfigurationError } from '../core/errors'
import { NO_PEPPER_ID } from '../core/hashing'
import { DAY_MS } from '../core/time'
import type { Invalidation } from '../ports/passcode-store'
import { createAccountsApi } from './accounts'
import { createAuditApi } from './audit/audit-api'
import { createAuditKeyring } from './audit/audit-keys'
import { createConnect } from './connect/connect'
import type { ManagementContext, PasscodeIssuer } from './context'
import { createEmitter } from './events'
import { resolveRecipients, sendWithin } from './notifier/notification-delivery'
import { createNotifyExpirations } from './notifier/notify-expirations'
import { resolveOptions, type PasscodeAuthOptions } from './options'
import { staticPartners } from './connect/partners'
import { createPartnersApi } from './connect/partners-api'
import { createLeakNotices } from './leaks/leak-notices'
import { createLeaksApi } from './leaks/report-leaks'
import { createPasscodesApi } from './passcodes/passcodes'
import { createLimiter } from './limiter/rate-limit'
import { createCreditNotices } from './limits/credit-notices'
import { createLimitsGate } from './limits/limits-gate'
import { startBudget } from './deadline'
import type { CreditNoticeClaim } from '../ports/limits-part'
import { usageReader } from './usage/usage-history'
import { UsageRecorder } from './usage/usage-recorder'
import { createUserPasscodeCrypto } from './user-passcodes/user-passcode-crypto'
import { createUserPasscodesApi } from './user-passcodes/user-passcodes'
import { createTelemetry } from './telemetry/telemetry'
import { traceAuthenticate, traceConnect } from './telemetry/traced-operations'
import { traceStore } from './telemetry/traced-store'
import { VerifyCaches } from './verify/caches'
import { findUnderPeppers, pepperReport, resolvePeppers } from './verify/peppers'
import { createVerifier } from './verify/pipeline'
import { createPrincipals, scopeRefusal } from './verify/restrictions'
import { partnerAllowed } from './verify/rules'
import { createScopesApi, declaredScopes } from './scopes'
import { createPolicyApi, policyReader } from './policy/policy-api'
import { createPolicyNotices } from './policy/policy-notices'
import { createDispatch } from './webhooks/dispatch'
import { createWebhooksApi } from './webhooks/webhooks-api'
import type { PasscodeAuth } from './passcode-auth'

export type { PasscodeAuth }

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
  const expiringSoonMs = resolved.limits.expiringSoonDays * DAY_MS
  const sunsetWithinMs = resolved.sunsetHeader ? expiringSoonMs : undefined
  const cacheOption = resolved.cache
  const caches = new VerifyCaches({
    accepted: cacheOption === false ? undefined : { ttlMs: cacheOption.ttlMs, maxEntries: cacheOption.maxEntries, warnWithinMs: sunsetWithinMs },
    refused: cacheOption === false || cacheOption.refusals === false ? undefined : cacheOption.refusals,
  })
  const partners = Array.isArray(resolved.partners) ? staticPartners(resolved.partners) : resolved.partners
  const emit = createEmitter(resolved.onEvent, now)
  const usage = resolved.usage === false ? undefined : new UsageRecorder(resolved.store, resolved.usage, emit, now)
  const telemetry = createTelemetry(resolved.telemetry)
  const store = telemetry === undefined ? resolved.store : traceStore(telemetry, resolved.store)
  const peppers = resolvePeppers(resolved.pepper)
  const scopes = declaredScopes(resolved.scopes)
  const principals = createPrincipals(scopes)
  // SPEC §5.32: the caches stop (and restart) trusting themselves on `unproven` (`proven`); the operator is told here.
  const invalidate = (invalidation: Invalidation): void => {
    caches.invalidate(invalidation)
    if (invalidation.type === 'unproven' || invalidation.type === 'proven') {
      telemetry?.delivery(invalidation.type === 'proven')
      emit?.(invalidation.type === 'proven' ? { type: 'invalidations.proven' } : { type: 'invalidations.unproven', message: invalidation.message })
    }
  }
  // SPEC §5.44: records are signed here, in the process, under the first audit key.
  const auditKeys = createAuditKeyring(resolved.auditKeys)
  const auditSigner = auditKeys.signer
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (!auditKeys.keyed && resolved.store.audit !== undefined && globalThis.process?.env?.NODE_ENV === 'production') {
    emit?.({
      type: 'config.no_audit_key',
      message:
        'NODE_ENV is production and audit records carry plain SHA-256 hashes, which whoever can write the database can recompute: set the auditKeys option (SPEC §5.44)',
    })
  }
  // What each job receives: the management jobs share these five, the ones that issue values the issuer.
  const management: ManagementContext = { store, now, emit, invalidate, auditSigner }
  // Restricted passcodes (SPEC §5.48, §5.52): what the jobs that make or show passcodes check them against.
  const policyOf = policyReader(store, resolved.policy)
  const restrictions = { scopes, policyOf }
  // Usage over time is read with the retention it is kept for (90 days with `usage: false`: nothing new is counted).
  const readUsage = usageReader(store, now, resolved.usage === false ? 90 : resolved.usage.retentionDays)
  const issuer: PasscodeIssuer = { prefix: resolved.prefix, hash: peppers.current.hash, pepperId: peppers.current.id }
  // Edge runtimes have no `process`, and some have one without `env`: the types of Node say otherwise.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (peppers.current.id === NO_PEPPER_ID && globalThis.process?.env?.NODE_ENV === 'production') {
    emit?.({
      type: 'config.no_pepper',
      message:
        'NODE_ENV is production and passcode hashes are plain SHA-256: set the pepper option (a list to add one to a running deployment, SPEC §5.28)',
    })
  }
  const unsubscribe = caches.accepted !== undefined ? resolved.store.subscribe?.(invalidate) : undefined
  // SPEC §5.50: the leases of rate limits and credits, their crossings' events and durable emails.
  const creditNotices = createCreditNotices({
    store,
    now,
    auditSigner,
    sendTimeoutMs: resolved.notifier.sendTimeoutMs,
    recipients: (accountId) => mailRecipients(accountId),
    deliver: (to, message) => mail(to, message),
  })
  const crossed = (notices: readonly CreditNoticeClaim[]): void => {
    for (const notice of notices) {
      const subject =
        notice.kind === 'account'
          ? { passcodeId: notice.key, ...(notice.name !== null && { name: notice.name }), ...(notice.hint !== null && { hint: notice.hint }) }
          : { userId: notice.key }
      emit?.({
        type: notice.type === 'low' ? 'credits.low' : 'credits.exhausted',
        accountId: notice.accountId,
        kind: notice.kind,
        ...subject,
        remaining: notice.balance,
        full: notice.full,
        nextRefillAt: notice.nextRefillAt === null ? null : new Date(notice.nextRefillAt),
      })
      void creditNotices.send(notice, now() + resolved.notifier.leaseMs)
    }
  }
  const limitsGate = createLimitsGate({
    store:
      resolved.store.leaseLimits === undefined ? undefined : (store as Required<Pick<typeof store, keyof import('../ports/limits-part').LimitsPart>>),
    now,
    lowRatio: resolved.passcodeLimits.lowCreditsRatio,
    idleReturnMs: resolved.passcodeLimits.idleReturnMs,
    leaseTargetMs: resolved.passcodeLimits.leaseTargetMs,
    noticeLeaseMs: resolved.notifier.leaseMs,
    crossed,
    startBudget: () => startBudget(resolved.timeoutMs),
  })
  const verifier = createVerifier({
    store,
    peppers,
    caches,
    limiter: resolved.rateLimit === false ? undefined : createLimiter({ timeoutMs: resolved.timeoutMs, emit }, resolved.rateLimit),
    now,
    timeoutMs: resolved.timeoutMs,
    sunsetWithinMs,
    emit,
    usage,
    limits: limitsGate,
    principals,
    telemetry:
      telemetry === undefined
        ? undefined
        : { cacheHit: (principal) => telemetry.cacheHit(principal), trace: (verify) => traceAuthenticate(telemetry, verify) },
  })
  const connect = createConnect({
    authenticate: verifier.authenticate,
    partnerAllowed,
    partners,
    timeoutMs: resolved.timeoutMs,
    now,
    usage,
    limits: limitsGate,
    emit,
  })

  let closing: Promise<void> | undefined
  const passcodes = createPasscodesApi({
    ...management,
    issuer,
    partners,
    limits: resolved.limits,
    allowReactivation: resolved.allowReactivation,
    pendingUse: usage === undefined ? undefined : (passcodeId) => usage.pendingAccount(passcodeId),
    readUsage,
    ...restrictions,
  })
  const userPasscodes = createUserPasscodesApi({
    ...management,
    issuer,
    expiringSoonDays: resolved.limits.expiringSoonDays,
    crypto: createUserPasscodeCrypto(resolved.encryptionKeys),
    pendingUse: usage === undefined ? undefined : (accountId, userId) => usage.pendingUser(accountId, userId),
    readUsage,
    ...restrictions,
  })
  // Emails outside the notifier's pass (a leak's, a disabled webhook endpoint's): false or null when they cannot go.
  const mailRecipients = async (accountId: string) => {
    const { mailer, recipients } = resolved
    if (mailer === undefined || recipients === undefined) return null
    return resolveRecipients(recipients, accountId, resolved.notifier.sendTimeoutMs).catch(() => null)
  }
  const mail = async (to: readonly string[], message: { readonly subject: string; readonly text: string; readonly html: string }) => {
    const { mailer } = resolved
    if (mailer === undefined) return false
    try {
      await sendWithin(mailer, { to: [...to], ...message }, resolved.notifier.sendTimeoutMs)
      return true
    } catch {
      return false
    }
  }
  const leakNotices = createLeakNotices({
    store,
    now,
    auditSigner,
    sendTimeoutMs: resolved.notifier.sendTimeoutMs,
    recipients: mailRecipients,
    deliver: mail,
  })
  // SPEC §5.52: the one email of a policy that finds passcodes breaking it, durable as the leak emails.
  const policyNotices = createPolicyNotices({
    store,
    now,
    auditSigner,
    sendTimeoutMs: resolved.notifier.sendTimeoutMs,
    recipients: mailRecipients,
    deliver: mail,
  })
  // SPEC §5.53: the store keeps each change's events with it; this reaches the endpoints.
  const { allowPrivateAddresses, sender, batchSize, concurrency, leaseMs } = resolved.webhooks
  const webhooks = createWebhooksApi({
    store,
    now,
    emit,
    auditSigner,
    sender,
    allowPrivateAddresses,
    dispatch: createDispatch({
      store,
      now,
      emit,
      auditSigner,
      sender,
      allowPrivateAddresses,
      options: { batchSize, concurrency, leaseMs },
      recipients: mailRecipients,
      deliver: mail,
      sendTimeoutMs: resolved.notifier.sendTimeoutMs,
    }),
  })
  const auth: PasscodeAuth = {
    passcodes,
    webhooks,
    userPasscodes,
    // SPEC §5.42: the change, its mark and its audit record in one store write; the email durable.
    leaks: createLeaksApi({
      read: (token) => findUnderPeppers(store, peppers, token, peppers.current.hash(token)),
      store,
      auditSigner,
      invalidate,
      notices: leakNotices,
      leaseMs: resolved.notifier.leaseMs,
      now,
      emit,
      action: resolved.leaks.action,
      allowReactivation: resolved.allowReactivation,
    }),
    accounts: {
      ...createAccountsApi(management),
      ...createPolicyApi({
        store,
        now,
        emit,
        auditSigner,
        defaultPolicy: resolved.policy,
        notices: policyNotices,
        leaseMs: resolved.notifier.leaseMs,
      }),
    },
    partners: createPartnersApi(partners),
    scopes: createScopesApi(scopes),
    audit: createAuditApi({ store, now, keys: auditKeys }),
    // The input only: what a caller passes second is not a budget.
    authenticate: (input) => verifier.authenticate(input),
    verifyRequest: verifier.request,
    requiredScopes: ((list: readonly string[] | undefined) => principals.requirement(list)) as PasscodeAuth['requiredScopes'],
    checkScopes: scopeRefusal,
    connect: telemetry === undefined ? connect : traceConnect(telemetry, connect),
    notifyExpirations: createNotifyExpirations({
      store,
      now,
      emit,
      auditSigner,
      telemetry,
      options: resolved,
      leaks: leakNotices,
      policies: policyNotices,
      credits: creditNotices,
    }),
    async pepperReport() {
      const report = await pepperReport(resolved.store, peppers, now())
      if (report === undefined) throw new ConfigurationError('The passcode store cannot count its hashes by pepper (no countHashesByPepper)')
      return report
    },
    close() {
      closing ??= (async () => {
        unsubscribe?.()
        // Leases first: what this instance holds goes back to the store (SPEC §5.50).
        await limitsGate.close()
        await usage?.close()
      })()
      return closing
    },
  }
  return auth
}
