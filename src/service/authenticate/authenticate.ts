import type { Principal } from '../../core/entities'
import { StorageTimeoutError } from '../../core/errors'
import { constantTimeEqual } from '../../core/hashing'
import { findUnderPeppers, rehashIfOlder } from './peppers'
import { isWellFormedPasscode } from '../../core/passcode-format'
import { isVisibleAscii } from '../../core/rules'
import { DAY_MS } from '../../core/time'
import { FAILURES, type FailureBody, type FailureReason } from '../../protocol/outcomes'
import type { CredentialMatch } from '../../ports/passcode-store'
import type { CredentialRead, OwnerRefusal, ServiceContext } from '../context'
import { startBudget, type Budget } from '../deadline'
import type { AuthObservation } from '../telemetry/telemetry'
import { sunsetHeaders } from '../../protocol/sunset'
import { Expiring } from './verification-cache'
import { countedOutcome, isCountedByConnect } from '../usage/count-hook'

/** The result of `auth.authenticate()`: never an exception for bad credentials. */
export type AuthOutcome =
  | {
      /** The credentials are valid. */
      readonly ok: true
      /** Who called. */
      readonly principal: Principal
      /**
       * Headers for the answer: `Sunset` (RFC 8594) with the passcode's expiry while it
       * is in its last `limits.expiringSoonDays` days, unless `sunsetHeader: false`.
       * The adapters add them to the host's response.
       */
      readonly headers?: Readonly<Record<string, string>>
    }
  | {
      /** Refused. */
      readonly ok: false
      /** Why, for logs only: never send it (every 400 reason gets the same body, SPEC §5.1). */
      readonly reason: FailureReason
      /** The HTTP status to answer with. */
      readonly statusCode: number
      /** The exact body to answer with. */
      readonly body: FailureBody
      /** Extra response headers: `Retry-After` on 429. */
      readonly headers?: Readonly<Record<string, string>>
    }

/** The two credentials, as taken from the headers. */
export interface CredentialsInput {
  /** The `X-Service-Account-Id` value. */
  readonly accountId: string
  /** The `X-Service-Passcode` value. */
  readonly passcode: string
  /**
   * The caller's address, for the `rateLimit` option's per-address limit. The HTTP
   * adapters pass the framework's `req.ip` / `request.ip` / `ctx.ip`, which honour
   * its trust-proxy settings; ignored while the limiter is off. Without it, the
   * request is counted with every other one that has none (SPEC §5.37).
   */
  readonly clientAddress?: string | undefined
}

const refusals = new Map<FailureReason, AuthOutcome>()
/** The shared, frozen refusal for a reason (bodies from the one outcome table). */
export function refuse(reason: Exclude<FailureReason, 'partner_not_whitelisted'>): AuthOutcome & { ok: false } {
  let outcome = refusals.get(reason)
  if (outcome === undefined) {
    const { statusCode, body } = FAILURES[reason]
    outcome = Object.freeze({ ok: false, reason, statusCode, body })
    refusals.set(reason, outcome)
  }
  return outcome as AuthOutcome & { ok: false }
}

function isAccepted(match: CredentialMatch): boolean {
  return match.acceptedPasscodes === 'both' || match.acceptedPasscodes === match.kind
}

/** How the credential's own account would be answered at `now`: a refusal, or `undefined` (accepted). */
function ownerRefusalOf(match: CredentialMatch, now: number): OwnerRefusal | undefined {
  if (!isAccepted(match)) return 'not_accepted'
  if (match.kind === 'user' && match.record.revokedAt !== null) return 'revoked'
  // Before expiry: a disabled passcode gets the 400 of an unknown one, never the 401 (SPEC §5.38).
  if (match.kind === 'account' && match.record.disabledAt != null) return 'disabled'
  const { expiresAt } = match.record
  if (expiresAt !== null && now >= expiresAt) return 'expired'
  return undefined
}

function principalOf(match: CredentialMatch): Principal {
  if (match.kind === 'user') return { accountId: match.record.accountId, kind: 'user', userId: match.record.userId }
  const { accountId, id, name, partners } = match.record
  // An unbound passcode's principal is exactly what it was before bindings existed.
  return partners === null
    ? { accountId, kind: 'account', passcodeId: id, passcodeName: name }
    : { accountId, kind: 'account', passcodeId: id, passcodeName: name, partners }
}

/**
 * Until when a match verifies: the passcode's expiry for its current value; for a
 * value replaced by a rotation, also the end of its overlap (SPEC §5.26). `undefined`
 * when the hash is neither, or the overlap has ended.
 */
function verifiedUntil(match: CredentialMatch, hash: string, now: number): number | null | undefined {
  const { record } = match
  if (constantTimeEqual(record.hash, hash)) return record.expiresAt
  if (match.kind !== 'account') return undefined
  const { previousHash, previousHashEndsAt, expiresAt } = match.record
  if (previousHash === null || previousHashEndsAt === null || now >= previousHashEndsAt || !constantTimeEqual(previousHash, hash)) {
    return undefined
  }
  return expiresAt === null ? previousHashEndsAt : Math.min(expiresAt, previousHashEndsAt)
}

/**
 * `authenticate` as the service calls it: `budget` is the deadline of the whole request
 * when this verification is part of one (a connect, the limiter's own store calls);
 * without it the verification starts its own.
 */
export type BudgetedAuthenticate = (input: CredentialsInput, budget?: Budget, observation?: AuthObservation) => Promise<AuthOutcome>

/**
 * Verifies an account ID and passcode (SPEC §5.1, §5.4–5.6, §5.11, §5.15).
 *
 * A cache hit costs one Map lookup. Otherwise every well-formed passcode is hashed
 * and looked up by hash, whether or not the account exists, so an unknown account
 * and a wrong passcode cost the same and answer the same bytes. Expired (401) is
 * told only when the passcode matched a credential of that very account.
 *
 * A well-formed passcode refused after its read is remembered in the refusal cache
 * (`cache.refusals`), so that retrying it costs one Map lookup too. Concurrent misses
 * of the same passcode share one store read.
 */
export function createAuthenticate(context: ServiceContext): BudgetedAuthenticate {
  const { cache, refusals, reads, store, emit, usage } = context
  const timeoutMs = context.options.timeoutMs

  const fail = (reason: Exclude<FailureReason, 'partner_not_whitelisted'>, accountId: string): AuthOutcome => {
    const outcome = refuse(reason)
    emit?.({ type: 'auth.failed', accountId, reason, statusCode: outcome.ok ? 200 : outcome.statusCode })
    return outcome
  }
  const succeed = (principal: Principal, now: number, headers: Readonly<Record<string, string>> | undefined, input: CredentialsInput): AuthOutcome => {
    // Usage over time (SPEC §5.41): a connect counts its own outcome, per partner.
    usage?.seen(principal, now, !isCountedByConnect(input))
    emit?.({ type: 'auth.succeeded', accountId: principal.accountId, principal })
    return headers === undefined ? { ok: true, principal } : { ok: true, principal, headers }
  }
  const { sunsetHeader } = context.options
  const warnWithinMs = context.options.limits.expiringSoonDays * DAY_MS

  return async function authenticate(input, budget, observation) {
    const accountId = input?.accountId
    const passcode = input?.passcode
    if (typeof accountId !== 'string' || typeof passcode !== 'string' || !isVisibleAscii(accountId) || !isVisibleAscii(passcode)) {
      return fail('malformed_credentials', typeof accountId === 'string' && isVisibleAscii(accountId) ? accountId : '')
    }
    const now = context.now()
    if (cache !== undefined) {
      const hit = cache.lookup(passcode, accountId, now)
      if (observation !== undefined) observation.cache = hit === undefined ? 'miss' : 'hit'
      if (hit instanceof Expiring) return succeed(hit.principal, now, now >= hit.warnFrom ? hit.headers : undefined, input)
      if (hit !== undefined) return succeed(hit, now, undefined, input)
    }
    // Only well-formed values are remembered, so a remembered one needs no checksum.
    if (refusals !== undefined) {
      const refused = refusals.get(passcode, accountId, now)
      if (refused !== undefined) {
        // Usage hook (SPEC §5.41): a remembered refusal that matched a credential of this account.
        const credential = usage === undefined ? undefined : refusals.credential(passcode, now)
        const outcome = credential === undefined ? undefined : countedOutcome(refused, credential, accountId)
        if (outcome !== undefined) usage!.refused(credential!, outcome, now)
        return fail(refused, accountId)
      }
    }
    if (!isWellFormedPasscode(passcode)) return fail('checksum_mismatch', accountId)

    const generation = cache?.generation ?? 0
    const refusalGeneration = refusals?.generation ?? 0
    const shared = reads.read(passcode, () => findUnderPeppers(store, context.peppers, passcode, context.hash(passcode)))
    let read: CredentialRead
    try {
      read = await (budget ?? startBudget(timeoutMs)).run(shared)
    } catch (error) {
      if (!(error instanceof StorageTimeoutError)) return fail('storage_error', accountId)
      reads.abandon(passcode, shared)
      return fail('storage_timeout', accountId)
    }
    const { match, hash } = read
    const validUntil = match === null ? undefined : verifiedUntil(match, hash, now)
    if (match === null || validUntil === undefined) {
      // A match whose value is no longer verified is a value a rotation replaced, after its overlap.
      const rotatedOut = match === null ? undefined : principalOf(match)
      refusals?.set(passcode, undefined, undefined, now, refusalGeneration, rotatedOut)
      // Usage hook (SPEC §5.41): the refusal matched this credential.
      if (rotatedOut !== undefined && rotatedOut.accountId === accountId) usage?.refused(rotatedOut, 'rotated_out', now)
      return fail('unknown_passcode', accountId)
    }
    const owner = match.record.accountId
    const ownerRefusal = ownerRefusalOf(match, now)
    const counted = ownerRefusal === undefined || owner !== accountId ? undefined : countedOutcome(ownerRefusal, undefined, accountId)
    const credential = counted === undefined ? undefined : principalOf(match)
    if (owner !== accountId || ownerRefusal !== undefined) refusals?.set(passcode, owner, ownerRefusal, now, refusalGeneration, credential)
    if (owner !== accountId) return fail('wrong_account', accountId)
    if (ownerRefusal !== undefined) {
      // Usage hook (SPEC §5.41): the refusal matched this credential.
      if (counted !== undefined) usage?.refused(credential!, counted, now)
      return fail(ownerRefusal, accountId)
    }

    const principal = principalOf(match)
    cache?.set(passcode, principal, validUntil, now, generation)
    rehashIfOlder(store, context.peppers, match, read, passcode)
    // Until when the value sent works: its expiry, or the end of a rotation's overlap.
    const warn = sunsetHeader && validUntil !== null && validUntil - now <= warnWithinMs
    return succeed(principal, now, warn ? sunsetHeaders(validUntil) : undefined, input)
  }
}

/**
 * The synchronous cache-hit path: see {@link createAuthenticateCached}. The caller's
 * address is read by the limiter's gate in front of it (`Limiter.gate`), when it has one.
 */
export type AuthenticateCached = (accountId: string, passcode: string, clientAddress?: string) => Principal | undefined

/**
 * The warm path of every protected request, for the HTTP adapters: the principal when
 * the verification cache holds these credentials, else `undefined`, and then the
 * caller takes the full `authenticate` path, which answers every other case. No
 * promise and no outcome object are made. Only a cached, valid passcode of this very
 * account can hit, so header checks that a hit would pass anyway are skipped. Emits
 * the same `auth.succeeded` event as `authenticate`. `undefined` without a cache.
 */
export function createAuthenticateCached(context: ServiceContext): AuthenticateCached | undefined {
  const { cache, emit, now, usage, telemetry } = context
  if (cache === undefined) return undefined
  return function authenticateCached(accountId, passcode) {
    const at = now()
    const principal = cache.get(passcode, accountId, at)
    if (principal === undefined) return undefined
    usage?.seen(principal, at)
    if (emit !== undefined) emit({ type: 'auth.succeeded', accountId: principal.accountId, principal })
    if (telemetry !== undefined) telemetry.cacheHit(principal)
    return principal
  }
}
