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
import { Expiring, type VerifyCaches } from './caches'
import { rehashIfOlder, type CredentialRead, type Peppers } from './peppers'
import { headerRecordOf, parsedCredentials, sentHeader, type CredentialReader } from './read-headers'
import { limitsStep } from './limits'
import { recordUse, type UseRecorder } from './record-use'
import { ownerRefusalOf, principalOf, verifiedUntil } from './rules'
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
 *   7. the passcode's limits and credits     limits.ts (a {@link LimitsGate}, given;
 *      (connect: after its partner check)    connect runs it itself)
 *   8. record the use (or the refusal)       record-use.ts
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
}

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
  /** `auth.verifyRequest`: the principal at once on a warm cache, else the outcome's promise. */
  request<Source>(this: void, request: Source, reader: CredentialReader<Source>): Principal | Promise<AuthOutcome>
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
  const { store, peppers, caches, limiter, now, timeoutMs, sunsetWithinMs, emit, telemetry } = deps
  const { accepted, refused, reads } = caches
  const readsAddress = limiter?.readsAddress === true
  const { usage } = deps
  const record = recordUse({ emit, usage, cacheHit: telemetry === undefined ? undefined : (principal) => telemetry.cacheHit(principal) })
  const limits = limitsStep(deps.limits, record)

  /** Steps 3 to 7, for parsed credentials the limiter let through. */
  async function check(
    accountId: string,
    passcode: string,
    budget: Budget | undefined,
    observation: AuthObservation | undefined,
    count: boolean,
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
      // 7. The limits (8. record the use).
      if (hit instanceof Expiring) return limits.success(hit.principal, at, at >= hit.warnFrom ? hit.headers : undefined, count, budget)
      if (hit !== undefined) return limits.success(hit, at, undefined, count, budget)
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
    const matched = match === null || usage === undefined ? undefined : principalOf(match)
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

    // The acceptance cache (with the credential's limits, SPEC §5.50) and the hash under the current pepper.
    const principal = withLimits(principalOf(match), match)
    accepted?.set(passcode, principal, validUntil, at, generations.accepted)
    rehashIfOlder(store, peppers, match, read, passcode)
    // Until when the value sent works: its expiry, or the end of a rotation's overlap.
    const warn = sunsetWithinMs !== undefined && validUntil !== null && validUntil - at <= sunsetWithinMs
    // 7. The limits; 8. record the use: the last use and the event.
    return limits.success(principal, at, warn ? sunsetHeaders(validUntil) : undefined, count, budget)
  }

  /** Every step, for a verification the synchronous path could not answer. */
  const full: FullVerification = async function verify(input, budget, observation, admitted) {
    // 1. Parse the credentials (SPEC §5.4).
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass no input */
    const accountId = input?.accountId
    const passcode = input?.passcode
    const account = typeof accountId === 'string' && isVisibleAscii(accountId) ? accountId : undefined
    // 2. The per-address limiter: a flooding address is shed before any hashing or store read.
    const clientAddress = readsAddress ? input?.clientAddress : undefined
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
    if (limiter !== undefined) {
      // A limiter store that answers at once (the memory store's) costs no promise hop.
      const admission = admitted ?? limiter.admit(clientAddress, now())
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
        : await check(account, passcode, budget, observation, !isCountedByConnect(input))
    if (limiter === undefined || !isCountedFailure(outcome)) return outcome
    // The account's count is read only now, for a failing attempt (SPEC §5.21): nobody
    // can lock an account's partners out by failing against its ID, which is no secret.
    const accountWait = await limiter.failed(account, clientAddress, now())
    if (accountWait <= 0) return outcome
    if (observation !== undefined) observation.limitedBy = 'account'
    return rateLimited(accountWait)
  }
  const traced = telemetry === undefined ? full : telemetry.trace(full)

  return {
    request(request, reader) {
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
        // 7. The limits, at once while this instance holds a lease; 8. record the use.
        if (principal !== undefined) return limits.hit(principal, at)
      }
      // Every other case: the steps in full, from the parsed headers, once the limiter has answered.
      const credentials = parsedCredentials(request, reader)
      return traced(clientAddress === undefined ? credentials : { ...credentials, clientAddress }, undefined, undefined, admitted)
    },
    authenticate(input, budget) {
      return traced(input, budget, undefined, undefined)
    },
  }
}
