import type { AcceptedPasscodes } from '../../core/entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../core/passcode-records'
import type { AccountPolicy } from '../../core/policy'
import type { PolicyNotice } from '../../ports/account-policy-part'
import type { Invalidation, LeakMark, NotificationKind, StoredUsageCount } from '../../ports/passcode-store'

/** A claimed or sent expiry email. */
export interface NotificationState {
  sentAt: number | null
  token: string | null
  claimedUntil: number
}

/** A stored leak mark with its state: open until an admin acts, its email's claim. */
export interface LeakMarkState {
  mark: LeakMark
  open: boolean
  token: string | null
  claimedUntil: number
}

/** An account's policy email (SPEC §5.52) with its claim. */
export interface PolicyNoticeState {
  notice: PolicyNotice
  token: string | null
  claimedUntil: number
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
