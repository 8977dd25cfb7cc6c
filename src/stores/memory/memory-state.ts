import type { AcceptedPasscodes } from '../../core/entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../core/passcode-records'
import type { AccountPolicy } from '../../core/policy'
import type { PolicyNotice } from '../../ports/account-policy-part'
import type { Invalidation, LeakMark, NotificationKind, StoredUsageCount } from '../../ports/passcode-store'

/** An email's claim: the token of the sender that holds it, and until when (0: free). */
export interface EmailClaim {
  token: string | null
  claimedUntil: number
}

/** A claimed or sent expiry email. */
export interface NotificationState extends EmailClaim {
  sentAt: number | null
}

/** A stored leak mark with its state: open until an admin acts, its email's claim. */
export interface LeakMarkState extends EmailClaim {
  mark: LeakMark
  open: boolean
}

/** An account's policy email (SPEC §5.52) with its claim. */
export interface PolicyNoticeState extends EmailClaim {
  notice: PolicyNotice
}

/** What a claim's completion records: `prepare` reads the state before, the function it returns stores the record. */
type Recording = () => () => void

/**
 * The claim, completion and release of one kind of email (expiry emails, leak
 * notices, policy emails, webhook notices), whose state is `S`; `due(state)` says
 * whether its email is still to be sent. A claim takes a due email whose lease has
 * passed; only the claim's holder completes it (once: the email is then sent, the
 * record stored) or releases it (it is free again at once).
 *
 * @example
 * ```ts
 * const claims = emailClaims<LeakMarkState>((state) => state.mark.notifiedAt === null)
 * if (claims.claimable(state, now)) claims.take(state, token, now, leaseMs)
 * claims.complete(state, token, () => audit.prepare(entry), (sent) => { sent.mark = { ...sent.mark, notifiedAt: at } })
 * ```
 */
export function emailClaims<S extends EmailClaim>(due: (state: S) => boolean) {
  return {
    /** Due, and no other sender's lease holds it at `now`. */
    claimable: (state: S, now: number): boolean => due(state) && state.claimedUntil <= now,
    /** Claims it for `token` until `now + leaseMs`. */
    take(state: S, token: string, now: number, leaseMs: number): void {
      state.token = token
      state.claimedUntil = now + leaseMs
    },
    /** Marks it sent (`markSent`) with its record when `token` holds its claim and it is still due; `false` otherwise. */
    complete(state: S | undefined, token: string, record: Recording, markSent: (state: S) => void): boolean {
      if (state?.token !== token || !due(state)) return false
      const recorded = record()
      markSent(state)
      state.token = null
      recorded()
      return true
    },
    /** Frees it when `token` holds its claim and it is still due. */
    release(state: S | undefined, token: string): void {
      if (state?.token !== token || !due(state)) return
      state.token = null
      state.claimedUntil = 0
    },
  }
}

export const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
export const userKey = (accountId: string, userId: string): string => `${accountId}\u0000${userId}`
export const notificationKey = (passcodeId: string, kind: NotificationKind, expiresAt: number): string =>
  `${passcodeId}\u0000${kind}\u0000${expiresAt}`

/**
 * The state of one memory store, which every part of it (memory-store.ts and the
 * memory-*.ts beside it) reads and changes, and the helpers they share.
 */
export function memoryState() {
  const passcodes = new Map<string, AccountPasscodeRecord>()
  const byHash = new Map<string, { kind: 'account'; id: string } | { kind: 'user'; key: string }>()
  const byAccount = new Map<string, Set<string>>()
  const users = new Map<string, UserPasscodeRecord>()
  const accepted = new Map<string, AcceptedPasscodes>()
  const notifications = new Map<string, NotificationState>()
  const listeners = new Set<(invalidation: Invalidation) => void>()
  /** Daily usage counts (SPEC §5.41) by kind, account and key, then by `day|partner|outcome`. */
  const usageDays = new Map<string, Map<string, StoredUsageCount>>()
  /** Leak marks (SPEC §5.42) by id, in insertion (report) order. */
  const leaks = new Map<string, LeakMarkState>()
  /** Accounts' own policies (SPEC §5.52); an account without one has the host's default. */
  const policies = new Map<string, AccountPolicy>()
  /** Each account's one policy email, sent or not, by account. */
  const policyNotices = new Map<string, PolicyNoticeState>()

  const publish = (invalidation: Invalidation): void => {
    for (const listener of listeners) {
      try {
        listener(invalidation)
      } catch {
        // A listener's failure must not undo or fail the write that published it.
      }
    }
  }

  const accountIds = (accountId: string): Set<string> => {
    let ids = byAccount.get(accountId)
    if (ids === undefined) {
      ids = new Set()
      byAccount.set(accountId, ids)
    }
    return ids
  }

  const nameTaken = (accountId: string, nameKey: string, exceptId?: string): boolean => {
    for (const id of byAccount.get(accountId) ?? []) {
      if (id !== exceptId && passcodes.get(id)?.nameKey === nameKey) return true
    }
    return false
  }

  const ownPasscode = (accountId: string, passcodeId: string): AccountPasscodeRecord | undefined => {
    const record = passcodes.get(passcodeId)
    return record?.accountId === accountId ? record : undefined
  }

  const isLive = (record: UserPasscodeRecord, now: number): boolean => record.revokedAt === null && record.expiresAt > now

  const openLeak = (accountId: string, kind: LeakMark['kind'], key: string): LeakMarkState | undefined => {
    for (const state of leaks.values()) {
      if (state.open && state.mark.accountId === accountId && state.mark.kind === kind && state.mark.key === key) return state
    }
    return undefined
  }
  /** An admin acted on the credential (SPEC §5.42): its open leak mark, if any, closes. */
  const closeLeak = (accountId: string, kind: LeakMark['kind'], key: string): void => {
    const state = openLeak(accountId, kind, key)
    if (state !== undefined) state.open = false
  }

  return {
    passcodes,
    byHash,
    byAccount,
    users,
    accepted,
    notifications,
    listeners,
    usageDays,
    leaks,
    policies,
    policyNotices,
    publish,
    accountIds,
    nameTaken,
    ownPasscode,
    isLive,
    openLeak,
    closeLeak,
  }
}

/** The state of one memory store (see {@link memoryState}). */
export type MemoryState = ReturnType<typeof memoryState>
