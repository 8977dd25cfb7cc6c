import type { Principal } from '../../core/entities'
import { StorageTimeoutError } from '../../core/errors'
import { isWellFormedPasscode } from '../../core/passcode-format'
import { isVisibleAscii } from '../../core/rules'
import type { PasscodeStore } from '../../ports/passcode-store'
import { ACCOUNT_ID_HEADER, PASSCODE_HEADER } from '../../protocol/credentials'
import { sunsetHeaders } from '../../protocol/sunset'
import { rateLimited, type AuthObservation, type AuthOutcome, type CredentialsInput } from '../auth-outcome'
import { isCountedByConnect } from '../count-hook'
import { withLimits, type LimitsGate } from '../credential-limits'
import { startBudget, type Budget } from '../deadline'
import type { EventInput } from '../events'
import type { VerifyCaches } from './caches'
import { Expiring } from './verification-cache'
import { rehashIfOlder, type CredentialRead, type Peppers } from './peppers'
import { headerRecordOf, parsedCredentials, sentHeader, type CredentialReader } from './read-headers'
import { limitsStep } from './limits'
import { recordUse, type UseRecorder } from './record-use'
import { missingScopeRefusal, restrictionRefusal, type Principals, type RestrictionRefusal, type ScopeRequirement } from './restrictions'
import { ownerRefusalOf, verifiedUntil } from './rules'
import { readCredential } from './store-read'

/**
 * The verification pipeline: the one path a credential takes, whether it comes from
 * an adapter (`auth.verifyRequest`), from `auth.authenticate` or from `auth.connect`.
 * Its steps, in order, each in its own function:
 *
 *   1. read and parse the headers            read-headers.ts
 *   2. the per-address limiter               ../limiter/ (a {@link Limiter}, given)
 *   3. the refusal cache                     caches.ts (RefusalCache)
 *   4. the acceptance cache                  caches.ts (VerificationCache)
 *   5. the single-flight store read          store-read.ts
 *   6. the rules: accepted kind, status,     rules.ts
 *      expiry (partner binding: connect)
 *   7. the restrictions: address allowlist,  restrictions.ts
 *      the route's scopes
 *   8. the passcode's limits and credits     limits.ts (a {@link LimitsGate}, given;
 *      (connect: after its partner check)    connect runs it itself)
 *   9. record the use (or the refusal)       record-use.ts
 *
 * Synchronous first, as hono's `compose` is: while every step answers at once, the
 * answer is the principal itself, with no promise, no closure and no object (the warm
 * path of every request); the first step that must wait (a store read, a limiter store
 * that answers later, a refusal, a `Sunset` header due) turns the rest into one promise.
 * The warm path asks the acceptance cache only: a value the refusal cache holds for an
 * account is never in the acceptance cache for it (a read writes one or the other, and
 * every invalidation drops both), so a refusal costs nothing there.
 */

/**
 * The per-address limiter as the pipeline calls it (step 2): the service builds it
 * from the `rateLimit` option (limiter/rate-limit.ts).
 */
export interface Limiter {
  /** Whether it counts per address: the pipeline reads the caller's address only then. */
  readonly readsAddress: boolean
  /**
   * How long the address must still wait (0: it may go on): a number when the limiter
   * store answers at once, else a promise; never rejects (a failing store lets the
   * request through).
   */
  admit(clientAddress: string | undefined, now: number): number | Promise<number>
  /**
   * Counts a failed attempt (400 or 401) against the address and the account; answers
   * how long the account must still wait (0: not limited, SPEC §5.21).
   */
  failed(accountId: string | undefined, clientAddress: string | undefined, now: number): Promise<number>
}

/** What the pipeline needs of the service: each a part of it, no more. */
export interface VerifyDeps {
  /** The store (with its trace wrapper when telemetry is on). */
  readonly store: PasscodeStore
  readonly peppers: Peppers
  readonly caches: VerifyCaches
  /** `undefined` with `rateLimit: false`. */
  readonly limiter: Limiter | undefined
  /** Epoch ms from the injected clock. */
  readonly now: () => number
  /** The storage deadline of one verification (`timeoutMs`). */
  readonly timeoutMs: number
  /** How long before its expiry a passcode's answers carry `Sunset`; `undefined` with `sunsetHeader: false`. */
  readonly sunsetWithinMs: number | undefined
  readonly emit: ((event: EventInput) => void) | undefined
  readonly usage: UseRecorder | undefined
  /** The limits step (SPEC §5.50); `undefined` for a store that keeps no limits. */
  readonly limits?: LimitsGate | undefined
  /** The telemetry of the pipeline; `undefined` without the `telemetry` option. */
  readonly telemetry?: VerifyTelemetry | undefined
  /** Makes each credential's principal, with what a restricted one allows (SPEC §5.48, §5.49). */
  readonly principals: Principals
}

/**
 * The scopes the route of a request needs, on the input a request hands to the full
 * path (`verifyRequest`'s third argument): a mark no caller of `authenticate` can set.
 */
const REQUIRED: unique symbol = Symbol('passcode-auth.requiredScopes')

type Marked = CredentialsInput & { readonly [REQUIRED]?: ScopeRequirement | undefined }

const addressOf = (address: string | undefined): string | undefined => address

/** A verification past the synchronous path, as the pipeline runs it and its trace wrapper calls it. */
export type FullVerification = (
  input: CredentialsInput,
  budget: Budget | undefined,
  observation: AuthObservation | undefined,
  admitted: number | Promise<number> | undefined,
) => Promise<AuthOutcome>

/** How telemetry sees the pipeline: the warm path's hits counted, the rest traced. */
export interface VerifyTelemetry {
  cacheHit(principal: Principal): void
  /** Wraps the full verification with a span and its metrics; hands it an observation to fill in. */
  trace(verify: FullVerification): FullVerification
}

/** One service's pipeline. */
export interface Verifier {
  /** `auth.verifyRequest`: the principal at once on a warm cache, else the outcome's promise; `required` the route's scopes. */
  request<Source>(this: void, request: Source, reader: CredentialReader<Source>, required?: ScopeRequirement): Principal | Promise<AuthOutcome>
  /** `auth.authenticate`, and `auth.connect`'s first step with the request's deadline. */
  authenticate(this: void, input: CredentialsInput, budget?: Budget): Promise<AuthOutcome>
}

const isCountedFailure = (outcome: AuthOutcome): boolean => !outcome.ok && (outcome.statusCode === 400 || outcome.statusCode === 401)

/**
 * Builds the pipeline of one service (SPEC §5.1, §5.4–5.6, §5.11, §5.15, §5.21).
 *
 * A cache hit costs one Map lookup. Otherwise every well-formed passcode is hashed and
 * looked up by hash, whether or not the account exists, so an unknown account and a
 * wrong passcode cost the same and answer the same bytes. Expired (401) is told only
 * when the passcode matched a credential of that very account. A well-formed passcode
 * refused after its read is remembered in the refusal cache, so that retrying it costs
 * one Map lookup too.
 *
 * @example
 * ```ts
 * const verifier = createVerifier({ store, peppers, caches, limiter: undefined, now: Date.now, timeoutMs: 5_000, sunsetWithinMs: undefined, emit: undefined, usage: undefined })
 * const outcome = await verifier.authenticate({ accountId: 'acc_1', passcode })
 * ```
 */
export function createVerifier(deps: VerifyDeps): Verifier {
  const { store, peppers, caches, limiter, now, timeoutMs, sunsetWithinMs, emit, telemetry, principals } = deps
  const { accepted, refused, reads } = caches
  const readsAddress = limiter?.readsAddress === true
  const { usage } = deps
  const record = recordUse({ emit, usage, cacheHit: telemetry === undefined ? undefined : (principal) => telemetry.cacheHit(principal) })
  const limits = limitsStep(deps.limits, record)

  // SPEC §5.49: an adapter that cannot see the client address is told of once.
  let toldNoAddress = false
  /** 7. A restricted passcode refused here: counted against it (SPEC §5.41), never a use. */
  function restricted(refusal: RestrictionRefusal, principal: Principal, accountId: string, at: number): AuthOutcome {
    const credential = usage === undefined ? undefined : principal
    if (typeof refusal === 'object') return record.refusal(missingScopeRefusal(refusal.missingScope), accountId, credential, at)
    if (refusal === 'address_unknown' && !toldNoAddress) {
      toldNoAddress = true
      emit?.({
        type: 'allowlist.no_client_address',
        accountId,
        message:
          "A passcode with an address allowlist was refused because the request came without a client address: pass the caller's address (the adapter's clientAddress option, or clientAddress to authenticate; behind a proxy, its trusted forwarded address). Such passcodes are refused until then (SPEC §5.49).",
      })
    }
    return record.refusal('address_not_allowed', accountId, credential, at)
  }

  /** Steps 3 to 9, for parsed credentials the limiter let through. */
  async function check(
    accountId: string,
    passcode: string,
    budget: Budget | undefined,
    observation: AuthObservation | undefined,
    count: boolean,
    clientAddress: string | undefined,
    required: ScopeRequirement | undefined,
  ): Promise<AuthOutcome> {
    const at = now()
    // 3. The refusal cache: only well-formed values are remembered, so a remembered one needs no checksum.
    if (refused !== undefined) {
      const refusal = refused.get(passcode, accountId, at)
      // The credential it matched is asked only when usage over time counts (SPEC §5.41).
      if (refusal !== undefined) return record.refusal(refusal, accountId, usage === undefined ? undefined : refused.credential(passcode, at), at)
    }
    // 4. The acceptance cache: here also the entries that owe a `Sunset` header.
    if (accepted !== undefined) {
      const hit = accepted.lookup(passcode, accountId, at)
      if (observation !== undefined) observation.cache = hit === undefined ? 'miss' : 'hit'
      if (hit !== undefined) {
        const principal = hit instanceof Expiring ? hit.principal : hit
        // 7. The restrictions, on the cached principal: no store read.
        const refusal = restrictionRefusal(principal, required, addressOf, clientAddress)
        if (refusal !== undefined) return restricted(refusal, principal, accountId, at)
        // 8. The limits (9. record the use).
        return limits.success(principal, at, hit instanceof Expiring && at >= hit.warnFrom ? hit.headers : undefined, count, budget)
      }
    }
    if (!isWellFormedPasscode(passcode)) return record.refusal('checksum_mismatch', accountId)

    // 5. The single-flight store read.
    const generations = caches.generations()
    let read: CredentialRead
    try {
      read = await readCredential(reads, store, peppers, passcode, budget ?? startBudget(timeoutMs))
    } catch (error) {
      return record.refusal(error instanceof StorageTimeoutError ? 'storage_timeout' : 'storage_error', accountId)
    }

    // 6. The rules.
    const { match, hash } = read
    const validUntil = match === null ? undefined : verifiedUntil(match, hash, at)
    // The credential a refusal matched, kept and counted only for usage over time (SPEC §5.41).
    const matched = match === null || usage === undefined ? undefined : principals.of(match)
    if (match === null || validUntil === undefined) {
      // A match whose value no longer verifies is a value a rotation replaced, after its overlap.
      refused?.set(passcode, undefined, undefined, at, generations.refused, matched)
      return record.refusal('unknown_passcode', accountId, matched, at)
    }
    const owner = match.record.accountId
    const ownerRefusal = ownerRefusalOf(match, at)
    if (owner !== accountId || ownerRefusal !== undefined) refused?.set(passcode, owner, ownerRefusal, at, generations.refused, matched)
    if (owner !== accountId) return record.refusal('wrong_account', accountId)
    if (ownerRefusal !== undefined) return record.refusal(ownerRefusal, accountId, matched, at)

    // The acceptance cache holds the principal with what it allows and its limits (SPEC §5.50): a request it refuses next costs no read.
    const principal = withLimits(principals.of(match), match)
    accepted?.set(passcode, principal, validUntil, at, generations.accepted)
    rehashIfOlder(store, peppers, match, read, passcode)
    // 7. The restrictions (SPEC §5.48, §5.49).
    const refusal = restrictionRefusal(principal, required, addressOf, clientAddress)
    if (refusal !== undefined) return restricted(refusal, principal, accountId, at)
    // Until when the value sent works: its expiry, or the end of a rotation's overlap.
    const warn = sunsetWithinMs !== undefined && validUntil !== null && validUntil - at <= sunsetWithinMs
    // 8. The limits; 9. record the use: the last use and the event.
    return limits.success(principal, at, warn ? sunsetHeaders(validUntil) : undefined, count, budget)
  }

  /** Every step, for a verification the synchronous path could not answer. */
  const full: FullVerification = async function verify(input, budget, observation, admitted) {
    // 1. Parse the credentials (SPEC §5.4).
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass no input */
    const accountId = input?.accountId
    const passcode = input?.passcode
    const account = typeof accountId === 'string' && isVisibleAscii(accountId) ? accountId : undefined
    // The caller's address: for the per-address limiter, and for an address allowlist (step 7).
    const clientAddress = input?.clientAddress
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
    // 2. The per-address limiter: a flooding address is shed before any hashing or store read.
    if (limiter !== undefined) {
      // A limiter store that answers at once (the memory store's) costs no promise hop.
      const admission = admitted ?? limiter.admit(readsAddress ? clientAddress : undefined, now())
      const wait = typeof admission === 'number' ? admission : await admission
      if (wait > 0) {
        if (observation !== undefined) observation.limitedBy = 'address'
        emit?.({ type: 'auth.failed', accountId: account ?? '', reason: 'rate_limited', statusCode: 429 })
        return rateLimited(wait)
      }
    }
    const outcome =
      account === undefined || typeof passcode !== 'string' || !isVisibleAscii(passcode)
        ? record.refusal('malformed_credentials', account ?? '')
        : await check(account, passcode, budget, observation, !isCountedByConnect(input), clientAddress, (input as Marked)[REQUIRED])
    if (limiter === undefined || !isCountedFailure(outcome)) return outcome
    // The account's count is read only now, for a failing attempt (SPEC §5.21): nobody
    // can lock an account's partners out by failing against its ID, which is no secret.
    const accountWait = await limiter.failed(account, readsAddress ? clientAddress : undefined, now())
    if (accountWait <= 0) return outcome
    if (observation !== undefined) observation.limitedBy = 'account'
    return rateLimited(accountWait)
  }
  const traced = telemetry === undefined ? full : telemetry.trace(full)

  return {
    request(request, reader, required) {
      // 1. Read the headers: a hit needs the two values as sent, single strings.
      const headers = headerRecordOf(request, reader)
      const passcode = sentHeader(request, reader, headers, PASSCODE_HEADER)
      const accountId = typeof passcode === 'string' ? sentHeader(request, reader, headers, ACCOUNT_ID_HEADER) : undefined
      // 2. The per-address limiter, read within this call (a fetch adapter's address lives only that long).
      const clientAddress = readsAddress ? reader.clientAddress(request) : undefined
      const at = now()
      const admitted = limiter === undefined ? 0 : limiter.admit(clientAddress, at)
      // 4. The acceptance cache, synchronously: the principal itself, or nothing due yet.
      if (admitted === 0 && accepted !== undefined && typeof passcode === 'string' && typeof accountId === 'string') {
        const principal = accepted.get(passcode, accountId, at)
        if (principal !== undefined) {
          // 7. The restrictions: one property read for a passcode without any; the address read only for one with ranges.
          const refusal = restrictionRefusal(principal, required, reader.clientAddress, request)
          // 8. The limits, at once while this instance holds a lease; 9. record the use.
          if (refusal === undefined) return limits.hit(principal, at)
          return Promise.resolve(restricted(refusal, principal, accountId, at))
        }
      }
      // Every other case: the steps in full, from the parsed headers, once the limiter has answered.
      const credentials: Marked = parsedCredentials(request, reader)
      // The address also for an allowlist (step 7), read within this call as the limiter's;
      // only for a value that could match a passcode (a malformed one is refused unread).
      const address = readsAddress
        ? clientAddress
        : typeof passcode === 'string' && isWellFormedPasscode(passcode)
          ? reader.clientAddress(request)
          : undefined
      const input: Marked =
        address === undefined && required === undefined ? credentials : { ...credentials, clientAddress: address, [REQUIRED]: required }
      return traced(input, undefined, undefined, admitted)
    },
    authenticate(input, budget) {
      return traced(input, budget, undefined, undefined)
    },
  }
}
