import type { AccountPasscodeRecord, UserPasscodeRecord } from '../core/passcode-records'
import type { CreditsView, PasscodeLeak, PasscodeView, UserPasscodeView } from '../core/passcode-views'
import { currentCredits } from '../core/limit-counters'
import { nextRefillAt, type StoredCredits } from '../core/limits'
import { accountPasscodeViolations, NO_POLICY, userPasscodeViolations, type AccountPolicy } from '../core/policy'
import { storedAddresses, storedScopes, storedTags } from '../core/restrictions'
import { isUnused } from '../core/rules'
import type { LeakMark } from '../ports/passcode-store'
import { passcodeStatus } from '../core/status'

/** Uses this instance saw but has not flushed yet: newer than what the store holds. */
export interface PendingUse {
  readonly at: number
  readonly partner: string | null
}

/**
 * One UTC day of a passcode's requests (SPEC §5.41): successes, and the refusals that
 * matched it, by kind. `/v1/connect` requests are counted in these totals too, and
 * per partner in `partners`.
 *
 * @example
 * ```ts
 * const { days } = await auth.passcodes.usage(actor, 'acc_1', passcodeId)
 * const total = days.reduce((sum, day) => sum + day.succeeded, 0)
 * ```
 */
export interface UsageDay {
  /** The UTC day, `YYYY-MM-DD`. */
  readonly date: string
  /** Requests that authenticated (on `/v1/connect`: and reached their partner). */
  readonly succeeded: number
  /** Refused: the passcode had expired. */
  readonly expired: number
  /** Refused: the account passcode was disabled. */
  readonly disabled: number
  /** Refused: the user passcode was revoked. */
  readonly revoked: number
  /** `/v1/connect` refused: no partner, a partner off the whitelist, or one outside the binding. */
  readonly wrongPartner: number
  /** Refused: a value a rotation replaced, after its overlap ended. */
  readonly rotatedOut: number
  /** Refused with 403: a route needed a scope the passcode lacks (SPEC §5.48). */
  readonly missingScope: number
  /** Refused with 403: from an address outside its ranges (SPEC §5.49). */
  readonly address: number
  /** Refused with 429: over the passcode's rate limit (SPEC §5.50). */
  readonly rateLimited: number
  /** Refused with 429: the passcode's credits were exhausted (SPEC §5.50). */
  readonly creditsExhausted: number
  /**
   * `/v1/connect` per whitelisted partner (normalised name), most requests first;
   * refusals for a name off the whitelist are under `wrongPartner` only.
   */
  readonly partners: readonly {
    /** The partner's name, as whitelisted. */
    readonly partner: string
    /** Its successful `/v1/connect` checks that day. */
    readonly succeeded: number
    /** Its refusals for a partner the passcode may not reach that day. */
    readonly wrongPartner: number
  }[]
}

/**
 * A passcode's usage over time (SPEC §5.41), as of the last usage flush of each
 * instance: the days with at least one counted request, oldest first, within the
 * kept days (`usage.retentionDays`).
 *
 * @example
 * ```ts
 * const usage = await auth.userPasscodes.usage(actor, 'acc_1', 'user_7')
 * console.log(usage.from, usage.days.length)
 * ```
 */
export interface PasscodeUsage {
  /** The first day kept, `YYYY-MM-DD`. */
  readonly from: string
  /** Today (UTC), `YYYY-MM-DD`. */
  readonly to: string
  /** Days with requests, oldest first. */
  readonly days: readonly UsageDay[]
}

/** Reads one credential's usage over time: an account passcode by its id, a user passcode by its user id. */
export type UsageReader = (kind: 'account' | 'user', accountId: string, key: string) => Promise<PasscodeUsage>

/**
 * The latest of the stored use and this instance's pending one, each a whole pair: a newer
 * pending use with no partner (a protected route) shows none, never an older one's (SPEC §5.46).
 */
function lastUse(record: { lastUsedAt: number | null; lastUsedPartner: string | null }, pending: PendingUse | undefined) {
  if (pending === undefined || (record.lastUsedAt !== null && record.lastUsedAt >= pending.at)) {
    return { at: record.lastUsedAt, partner: record.lastUsedPartner }
  }
  return { at: pending.at, partner: pending.partner }
}

/**
 * What a view of a restricted passcode (SPEC §5.48, §5.52) needs of the service: the
 * scopes the host declares (to show the others as unknown; `undefined`: it declares
 * none) and the account's policy.
 */
export interface RestrictionContext {
  readonly declaredScopes?: ReadonlySet<string> | undefined
  readonly policy?: AccountPolicy | undefined
}

/** The scopes of a view: as stored, and those the host no longer declares. */
function scopeFields(
  record: { readonly scopes?: readonly string[] | null; readonly allowedAddresses?: readonly string[] },
  declared: ReadonlySet<string> | undefined,
) {
  const scopes = storedScopes(record)
  return {
    scopes: scopes === null ? null : [...scopes],
    unknownScopes: scopes === null ? [] : scopes.filter((scope) => declared?.has(scope) !== true),
    allowedAddresses: [...storedAddresses(record)],
  }
}

/**
 * The public view of an account passcode, with its status at `now`. No hash.
 * `partnersNotWhitelisted` is for the caller to work out (it needs the registry).
 */
export function toPasscodeView(
  record: AccountPasscodeRecord,
  now: number,
  expiringSoonDays: number,
  extra: {
    partnersNotWhitelisted?: readonly string[]
    pending?: PendingUse | undefined
    leak?: LeakMark | undefined
    balance?: number | undefined
  } & RestrictionContext = {},
): PasscodeView {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a host's store written before descriptions (SPEC §5.39) has none
  const description = record.description ?? ''
  const violations = accountPasscodeViolations(extra.policy ?? NO_POLICY, { expiry: record.expiry, description })
  const used = lastUse(record, extra.pending)
  const previousEnds = record.previousHashEndsAt
  return {
    id: record.id,
    accountId: record.accountId,
    name: record.name,
    hint: record.hint,
    expiry: record.expiry,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
    expiresAt: record.expiresAt === null ? null : new Date(record.expiresAt),
    status: passcodeStatus(record, now, expiringSoonDays),
    disabledAt: record.disabledAt == null ? null : new Date(record.disabledAt),
    description,
    partners: record.partners === null ? null : [...record.partners],
    partnersNotWhitelisted: extra.partnersNotWhitelisted ?? [],
    previousValueEndsAt: previousEnds !== null && previousEnds > now ? new Date(previousEnds) : null,
    lastUsedAt: used.at === null ? null : new Date(used.at),
    lastUsedPartner: used.partner,
    unused: isUnused(used.at, now),
    leak: toPasscodeLeak(extra.leak),
    valueLeaked: record.valueLeaked === true,
    ...scopeFields(record, extra.declaredScopes),
    metadata: record.metadata ?? null,
    tags: [...storedTags(record)],
    policyViolations: violations,
    violatesPolicy: violations.length > 0,
    rateLimit: record.rateLimit ?? null,
    credits: toCreditsView(record.credits, now, extra.balance),
  }
}

/**
 * Credits as a view shows them (SPEC §5.50): the store's balance when the caller read
 * it, else the setting's at `now` (no lease taken yet); `null` without credits.
 */
export function toCreditsView(credits: StoredCredits | null | undefined, now: number, balance: number | undefined): CreditsView | null {
  if (credits == null) return null
  const remaining = balance ?? currentCredits(credits, null, now, 0).balance
  const { refill } = credits
  return { remaining, refill, nextRefillAt: refill === null ? null : new Date(nextRefillAt(refill.interval, now)) }
}

/** A leak mark as a view shows it (SPEC §5.42): when and where, never the value; `null` without one. */
function toPasscodeLeak(mark: LeakMark | undefined): PasscodeLeak | null {
  return mark === undefined ? null : { reportedAt: new Date(mark.reportedAt), url: mark.url, source: mark.source }
}

/**
 * The public view of a user passcode, with its status at `now`. No hash, no ciphertext.
 * `leak` is the user's open leak mark, for the caller to read (SPEC §5.42).
 */
export function toUserPasscodeView(
  record: UserPasscodeRecord,
  now: number,
  expiringSoonDays: number,
  extra: { pending?: PendingUse | undefined; leak?: LeakMark | undefined; balance?: number | undefined } & RestrictionContext = {},
): UserPasscodeView {
  const used = lastUse(record, extra.pending)
  const violations = userPasscodeViolations(extra.policy ?? NO_POLICY, record.validity, record.grantedAt)
  return {
    accountId: record.accountId,
    userId: record.userId,
    hint: record.hint,
    validity: record.validity,
    grantedAt: new Date(record.grantedAt),
    expiresAt: new Date(record.expiresAt),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt),
    status: passcodeStatus(record, now, expiringSoonDays),
    lastUsedAt: used.at === null ? null : new Date(used.at),
    lastUsedPartner: used.partner,
    unused: isUnused(used.at, now),
    leak: toPasscodeLeak(extra.leak),
    ...scopeFields(record, extra.declaredScopes),
    policyViolations: violations,
    violatesPolicy: violations.length > 0,
    rateLimit: record.rateLimit ?? null,
    credits: toCreditsView(record.credits, now, extra.balance),
  }
}
