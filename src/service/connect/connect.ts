import { StorageTimeoutError } from '../../core/errors'
import type { Principal } from '../../core/entities'
import { isPartnerNameLookable } from '../../core/rules'
import { CONNECT_SUCCESS, partnerNotWhitelisted, type FailureReason, type HttpResult } from '../../protocol/outcomes'
import { readCredentialsFrom, type Credentials, type HeaderSource } from '../../protocol/credentials'
import type { PartnerRegistry } from '../../ports/partner-registry'
import { refuse, type AuthOutcome, type CredentialsInput } from '../auth-outcome'
import { COUNTED_BY_CONNECT, countedOutcome, type CountedByConnect, type CountedRefusal } from '../count-hook'
import { isRefusal, type LimitsGate } from '../credential-limits'
import type { EventInput } from '../events'
import { startBudget, type Budget } from '../deadline'

/**
 * Input of `auth.connect`: the request's headers and its `partner` query value(s).
 * HTTP adapters that have already read the two headers (O(1) lookups on Node's
 * lower-cased `req.headers`) pass `credentials` instead of `headers`; `undefined`
 * means the headers broke SPEC §5.4.
 */
export type ConnectInput = (
  | {
      /** A Fetch `Headers`, Node's `req.headers`, or any object of header name → value. */
      readonly headers: HeaderSource
      /** The `partner` query parameter; an array when repeated. */
      readonly partner: string | readonly string[] | null | undefined
    }
  | {
      /** The credential headers as read by `readCredentials`, or `undefined` when they were invalid. */
      readonly credentials: Credentials | undefined
      /** The `partner` query parameter; an array when repeated. */
      readonly partner: string | readonly string[] | null | undefined
    }
) & {
  /** The caller's address, for the `rateLimit` option (see `CredentialsInput.clientAddress`). */
  readonly clientAddress?: string | undefined
}

/** The answer of `GET /v1/connect`, with the reason for audit and logs. */
export type ConnectResult = HttpResult & {
  /** Why it was refused, for logs only; absent on success. */
  readonly reason?: FailureReason
}

const asResult = (outcome: AuthOutcome & { ok: false }): ConnectResult => outcome

/** What `auth.connect` needs of the service, and nothing more. */
export interface ConnectDeps {
  /** The verification pipeline, given the request's deadline. */
  readonly authenticate: (input: CredentialsInput, budget: Budget) => Promise<AuthOutcome>
  /** The pipeline's partner-binding rule (SPEC §5.25). */
  readonly partnerAllowed: (principal: Principal, partner: string) => boolean
  readonly partners: PartnerRegistry
  readonly timeoutMs: number
  readonly now: () => number
  /** Records a connect as a use of the passcode and counts its outcome per partner (SPEC §5.27, §5.41); `undefined` with `usage: false`. */
  readonly usage: ConnectUsage | undefined
  /** The passcode's limits and credits (SPEC §5.50), run after the partner check; `undefined` for a store that keeps none. */
  readonly limits?: LimitsGate | undefined
  /** Reports a 429 of the passcode's limits; `undefined` without `onEvent`. */
  readonly emit?: ((event: EventInput) => void) | undefined
}

/** How `auth.connect` records its outcome: the usage recorder, seen through what connect calls. */
export interface ConnectUsage {
  /** A connect that reached `partner` (normalised): a use, counted per partner. */
  seenConnect(principal: Principal, partner: string, now: number): void
  /** A verified connect refused for its partner: `partner` when whitelisted, else `''`. Not a use. */
  refusedConnect(principal: Principal, partner: string, now: number): void
  /** A verified connect to `partner` refused by the passcode's own limits (SPEC §5.50). Not a use. */
  refused(principal: Principal, outcome: CountedRefusal, now: number, partner: string): void
}

/**
 * `GET /v1/connect` without HTTP (SPEC §4, §5.1–5.3): credentials first, so an
 * unauthenticated caller never learns whether a partner is whitelisted; then the
 * partner, trimmed and compared case-insensitively. A repeated `partner` names no
 * single partner and is answered like a missing one.
 */
export function createConnect(deps: ConnectDeps): (input: ConnectInput) => Promise<ConnectResult> {
  const { authenticate, partnerAllowed, partners, timeoutMs, now, usage, limits, emit } = deps
  return async function connect(input) {
    // One deadline for the credential lookup and the partner lookup together (SPEC §5.23).
    const budget = startBudget(timeoutMs)
    const partner = input.partner
    const credentials = 'credentials' in input ? input.credentials : readCredentialsFrom(input.headers)
    const clientAddress = input.clientAddress
    const given = credentials ?? { accountId: '', passcode: '' }
    // Usage hook (SPEC §5.41): this request's outcome is counted here, per partner, not by authenticate.
    const counted: Credentials & CountedByConnect = { ...given, [COUNTED_BY_CONNECT]: true }
    const outcome = await authenticate(clientAddress === undefined ? counted : { ...counted, clientAddress }, budget)
    if (!outcome.ok) return asResult(outcome)

    const single = typeof partner === 'string' ? partner : partner?.length === 1 ? partner[0] : undefined
    const normalized = single?.trim().toLowerCase()
    if (single === undefined || normalized === undefined || normalized === '') {
      usage?.refusedConnect(outcome.principal, '', now())
      return asResult(refuse('missing_partner'))
    }
    // No registry can hold such a name, and a database may refuse it with an error (NUL).
    if (!isPartnerNameLookable(normalized)) {
      usage?.refusedConnect(outcome.principal, '', now())
      return { ...partnerNotWhitelisted(single), reason: 'partner_not_whitelisted' }
    }

    let whitelisted: boolean
    try {
      const answer = partners.isWhitelisted(normalized)
      // A list held in memory answers at once: no deadline timer for it.
      whitelisted = typeof answer === 'boolean' ? answer : await budget.run(Promise.resolve(answer))
    } catch (error) {
      return asResult(refuse(error instanceof StorageTimeoutError ? 'storage_timeout' : 'storage_error'))
    }
    // A passcode bound to other partners gets the same 403 as a partner off the list (SPEC §5.25).
    const { principal } = outcome
    if (!whitelisted || !partnerAllowed(principal, normalized)) {
      // A name off the whitelist is the caller's string: it is not kept.
      usage?.refusedConnect(principal, whitelisted ? normalized : '', now())
      return { ...partnerNotWhitelisted(single), reason: 'partner_not_whitelisted' }
    }
    // The passcode's limits come last (SPEC §5.50): a connect refused for its partner spends nothing.
    if (limits !== undefined) {
      const admitted = await limits.admit(principal, now(), budget)
      if (isRefusal(admitted)) {
        const counted = countedOutcome(admitted.reason, principal, principal.accountId)
        if (counted !== undefined) usage?.refused(principal, counted, now(), normalized)
        emit?.({ type: 'auth.failed', accountId: principal.accountId, reason: admitted.reason, statusCode: admitted.statusCode })
        return asResult(admitted)
      }
    }
    usage?.seenConnect(principal, normalized, now())
    return outcome.headers === undefined ? CONNECT_SUCCESS : { ...CONNECT_SUCCESS, headers: outcome.headers }
  }
}
