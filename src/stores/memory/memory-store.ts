import type { AcceptedPasscodes, AccountPasscodeRecord, UserPasscodeRecord } from '../../core/entities'
import type {
  AccountPasscodePatch,
  ClaimRequest,
  CreateResult,
  CredentialMatch,
  GrantResult,
  Invalidation,
  LeakMark,
  LeakNoticeClaim,
  NotificationClaim,
  NotificationKind,
  UpdateResult,
  Rehash,
  StoredUsageCount,
  UsageCount,
  UsageEntry,
} from '../../ports/passcode-store'
import {
  acceptedPasscodesEntry,
  deletedPasscodeEntry,
  editedPasscodeEntry,
  leakReportedEntry,
  policyChangedEntry,
  resetUserPasscodeEntry,
  rotatedPasscodeEntry,
} from '../../core/audit-fields'
import { dueNotification } from '../../core/notifications'
import { memoryAuditLog } from './memory-audit-log'
import { memoryLimits } from './memory-limits'
import { memoryWebhooks } from './memory-webhooks'
import type { CompletePasscodeStore } from '../../ports/passcode-store'
import type { AccountPolicy } from '../../core/policy'
import type { PolicyNotice } from '../../ports/account-policy-part'

interface NotificationState {
  sentAt: number | null
  token: string | null
  claimedUntil: number
}

/** A stored leak mark with its state: open until an admin acts, its email's claim. */
interface LeakMarkState {
  mark: LeakMark
  open: boolean
  token: string | null
  claimedUntil: number
}

/** An account's policy email (SPEC §5.52) with its claim. */
interface PolicyNoticeState {
  notice: PolicyNotice
  token: string | null
  claimedUntil: number
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
const userKey = (accountId: string, userId: string): string => `${accountId}\u0000${userId}`
const notificationKey = (passcodeId: string, kind: NotificationKind, expiresAt: number): string => `${passcodeId}\u0000${kind}\u0000${expiresAt}`

/**
 * The in-memory store: a complete reference implementation of `PasscodeStore`
 * for tests, demos and single-process hosts. Every operation runs to completion
 * without yielding, so the cap, name uniqueness and notification claims are atomic.
 * Records are copied in and out, so callers cannot change stored state by mutation.
 * Several `createPasscodeAuth` instances sharing one memory store see each other's
 * invalidations, like instances sharing PostgreSQL.
 *
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { memoryStore } from 'passcode-auth/memory'
 *
 * const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })
 * ```
 */
export function memoryStore(): CompletePasscodeStore {
  const passcodes = new Map<string, AccountPasscodeRecord>()
  const byHash = new Map<string, { kind: 'account'; id: string } | { kind: 'user'; key: string }>()
  const byAccount = new Map<string, Set<string>>()
  const users = new Map<string, UserPasscodeRecord>()
  const accepted = new Map<string, AcceptedPasscodes>()
  const notifications = new Map<string, NotificationState>()
  const listeners = new Set<(invalidation: Invalidation) => void>()
  // SPEC §5.53: each audit record's events are stored in the step that stores the record.
  const webhooks = memoryWebhooks({
    prepare: (entry) => audit.prepare(entry),
    subject: (accountId, target) => {
      if (target.type === 'passcode') {
        const record = passcodes.get(target.id)
        return record?.accountId === accountId ? { hint: record.hint, expiresAt: record.expiresAt } : undefined
      }
      const record = target.type === 'user' ? users.get(userKey(accountId, target.id)) : undefined
      return record === undefined ? undefined : { hint: record.hint, expiresAt: null }
    },
  })
  const audit = memoryAuditLog((entry) => webhooks.observe(entry))
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

  // Limits and credits (SPEC §5.50): their counters, beside the records that hold the settings.
  const limits = memoryLimits({
    subject(kind, accountId, key) {
      const record = kind === 'account' ? ownPasscode(accountId, key) : users.get(userKey(accountId, key))
      if (record === undefined) return undefined
      const named = kind === 'account' ? (record as AccountPasscodeRecord) : undefined
      return { rateLimit: record.rateLimit ?? null, credits: record.credits ?? null, name: named?.name ?? null, hint: named?.hint ?? null }
    },
    *withCredits(accountId) {
      for (const id of byAccount.get(accountId) ?? []) {
        const credits = passcodes.get(id)?.credits
        if (credits != null) yield { kind: 'account' as const, key: id, credits }
      }
      for (const record of users.values()) {
        if (record.accountId === accountId && record.credits != null) yield { kind: 'user' as const, key: record.userId, credits: record.credits }
      }
    },
    audited(entry, apply) {
      const recorded = audit.prepare(entry)
      apply()
      recorded()
    },
  })

  /** The credential holding `hash`, as the verification lookup answers it. */
  const credentialOf = (hash: string): CredentialMatch | null => {
    const entry = byHash.get(hash)
    if (entry === undefined) return null
    if (entry.kind === 'account') {
      const record = passcodes.get(entry.id)
      if (record === undefined) return null
      return { kind: 'account', record: { ...record }, acceptedPasscodes: accepted.get(record.accountId) ?? 'account' }
    }
    const record = users.get(entry.key)
    if (record === undefined) return null
    return { kind: 'user', record: { ...record }, acceptedPasscodes: accepted.get(record.accountId) ?? 'account' }
  }

  return {
    ...limits,
    async createAccountPasscode(record, maxPerAccount, entry): Promise<CreateResult> {
      const ids = accountIds(record.accountId)
      if (nameTaken(record.accountId, record.nameKey)) return { ok: false, reason: 'duplicate_name' }
      if (ids.size >= maxPerAccount) return { ok: false, reason: 'cap_reached' }
      const recorded = audit.prepare(entry)
      // Frozen: records handed out share the binding instead of copying it on every read.
      const stored = { ...record, partners: record.partners === null ? null : Object.freeze([...record.partners]) }
      passcodes.set(stored.id, stored)
      byHash.set(stored.hash, { kind: 'account', id: stored.id })
      ids.add(stored.id)
      recorded()
      return { ok: true, record: { ...stored } }
    },

    async updateAccountPasscode(accountId, passcodeId, patch: AccountPasscodePatch, entry): Promise<UpdateResult> {
      const current = ownPasscode(accountId, passcodeId)
      if (current === undefined) return { ok: false, reason: 'not_found' }
      if (patch.nameKey !== undefined && nameTaken(accountId, patch.nameKey, passcodeId)) {
        return { ok: false, reason: 'duplicate_name' }
      }
      const next: AccountPasscodeRecord = {
        ...current,
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.nameKey !== undefined && { nameKey: patch.nameKey }),
        ...(patch.expiry !== undefined && { expiry: patch.expiry }),
        ...(patch.expiresAt !== undefined && { expiresAt: patch.expiresAt }),
        ...(patch.partners !== undefined && { partners: patch.partners === null ? null : Object.freeze([...patch.partners]) }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.disabledAt !== undefined && { disabledAt: patch.disabledAt }),
        ...(patch.scopes !== undefined && { scopes: patch.scopes === null ? null : Object.freeze([...patch.scopes]) }),
        ...(patch.allowedAddresses !== undefined && { allowedAddresses: Object.freeze([...patch.allowedAddresses]) }),
        ...(patch.metadata !== undefined && { metadata: patch.metadata }),
        ...(patch.tags !== undefined && { tags: Object.freeze([...patch.tags]) }),
        ...(patch.rateLimit !== undefined && { rateLimit: patch.rateLimit }),
        ...(patch.credits !== undefined && { credits: patch.credits }),
        updatedAt: patch.updatedAt,
      }
      const recorded = audit.prepare(entry, (given) => editedPasscodeEntry(given, current, next))
      passcodes.set(passcodeId, next)
      if (patch.disabledAt === null) closeLeak(accountId, 'account', passcodeId)
      recorded()
      // What a verification reads (the principal's scopes and metadata, the address ranges included); not a description or tags.
      const { description: _description, tags: _tags, updatedAt: _updatedAt, ...read } = patch
      if (Object.values(read as Record<string, unknown>).some((value) => value !== undefined))
        publish({ type: 'account_passcode', accountId, passcodeId })
      return { ok: true, record: { ...next } }
    },

    async rotateAccountPasscode(accountId, passcodeId, rotation, entry) {
      const current = ownPasscode(accountId, passcodeId)
      if (current === undefined) return null
      // SPEC §5.45: a leaked value (an open mark) gets no overlap, whatever was asked.
      const keepsCurrent = rotation.previousHashEndsAt !== null && openLeak(accountId, 'account', passcodeId) === undefined
      // The replaced hash's pepper says nothing about the new one; it is the previous hash's now (SPEC §5.47).
      const { pepperId: replaced, previousPepperId: _older, ...unchanged } = current
      const next: AccountPasscodeRecord = {
        ...unchanged,
        ...(rotation.pepperId != null && { pepperId: rotation.pepperId }),
        ...(keepsCurrent && replaced != null && { previousPepperId: replaced }),
        hash: rotation.hash,
        hint: rotation.hint,
        previousHash: keepsCurrent ? current.hash : null,
        previousHashEndsAt: keepsCurrent ? rotation.previousHashEndsAt : null,
        updatedAt: rotation.updatedAt,
      }
      const recorded = audit.prepare(entry, (given) => rotatedPasscodeEntry(given, current, next))
      // Only one previous value: a rotation during an overlap ends the older one.
      if (current.previousHash !== null) byHash.delete(current.previousHash)
      if (!keepsCurrent) byHash.delete(current.hash)
      passcodes.set(passcodeId, next)
      byHash.set(next.hash, { kind: 'account', id: passcodeId })
      closeLeak(accountId, 'account', passcodeId)
      recorded()
      publish({ type: 'account_passcode', accountId, passcodeId })
      return { ...next }
    },

    async deleteAccountPasscode(accountId, passcodeId, entry) {
      const current = ownPasscode(accountId, passcodeId)
      if (current === undefined) return null
      const recorded = audit.prepare(entry, (given) => deletedPasscodeEntry(given, current))
      passcodes.delete(passcodeId)
      byHash.delete(current.hash)
      if (current.previousHash !== null) byHash.delete(current.previousHash)
      byAccount.get(accountId)?.delete(passcodeId)
      for (const key of notifications.keys()) {
        if (key.startsWith(`${passcodeId}\u0000`)) notifications.delete(key)
      }
      closeLeak(accountId, 'account', passcodeId)
      recorded()
      publish({ type: 'account_passcode', accountId, passcodeId })
      return { ...current }
    },

    async getAccountPasscode(accountId, passcodeId) {
      const record = ownPasscode(accountId, passcodeId)
      return record === undefined ? null : { ...record }
    },

    async listAccountPasscodes(accountId) {
      const out: AccountPasscodeRecord[] = []
      for (const id of byAccount.get(accountId) ?? []) {
        const record = passcodes.get(id)
        if (record !== undefined) out.push({ ...record })
      }
      return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    },

    async findCredentialByHash(hash) {
      return credentialOf(hash)
    },

    // Every hash read in one synchronous pass: no write can come between two of them.
    async findCredentialsByHashes(hashes) {
      return hashes.map(credentialOf)
    },

    async rehashCredential({ kind, accountId, id, fromHash, toHash, pepperId }: Rehash) {
      const key = kind === 'account' ? id : userKey(accountId, id)
      const current = kind === 'account' ? ownPasscode(accountId, id) : users.get(key)
      if (current?.accountId !== accountId || current.hash !== fromHash) return false
      byHash.delete(fromHash)
      if (kind === 'account') {
        passcodes.set(id, { ...(current as AccountPasscodeRecord), hash: toHash, pepperId })
        byHash.set(toHash, { kind: 'account', id })
      } else {
        users.set(key, { ...(current as UserPasscodeRecord), hash: toHash, pepperId })
        byHash.set(toHash, { kind: 'user', key })
      }
      return true
    },

    async countHashesByPepper(now) {
      const counts = new Map<string | null, number>()
      const count = (id: string | null) => counts.set(id, (counts.get(id) ?? 0) + 1)
      for (const record of [...passcodes.values(), ...users.values()]) count(record.pepperId ?? null)
      // The previous value of a rotation, while its overlap lasts (SPEC §5.47).
      for (const record of passcodes.values()) {
        if (record.previousHash !== null && record.previousHashEndsAt !== null && now < record.previousHashEndsAt)
          count(record.previousPepperId ?? null)
      }
      return counts
    },

    async recordUsage(entries: readonly UsageEntry[]) {
      let written = 0
      for (const entry of entries) {
        if (entry.kind === 'account') {
          const current = ownPasscode(entry.accountId, entry.passcodeId)
          if (current === undefined || (current.lastUsedAt !== null && current.lastUsedAt >= entry.at)) continue
          passcodes.set(current.id, { ...current, lastUsedAt: entry.at, lastUsedPartner: entry.partner })
        } else {
          const key = userKey(entry.accountId, entry.userId)
          const current = users.get(key)
          if (current === undefined || (current.lastUsedAt !== null && current.lastUsedAt >= entry.at)) continue
          users.set(key, { ...current, lastUsedAt: entry.at, lastUsedPartner: entry.partner })
        }
        written++
      }
      return written
    },

    async recordUsageCounts(counts: readonly UsageCount[]) {
      for (const { kind, accountId, key, day, partner, outcome, n } of counts) {
        const credential = `${kind}\u0000${accountId}\u0000${key}`
        let days = usageDays.get(credential)
        if (days === undefined) {
          days = new Map()
          usageDays.set(credential, days)
        }
        const row = `${day}\u0000${partner}\u0000${outcome}`
        days.set(row, { day, partner, outcome, n: (days.get(row)?.n ?? 0) + n })
      }
    },

    async listUsageCounts({ kind, accountId, key, from }) {
      const days = usageDays.get(`${kind}\u0000${accountId}\u0000${key}`)
      if (days === undefined) return []
      const rows = [...days.values()].filter((row) => row.day >= from).map((row) => ({ ...row }))
      return rows.sort((a, b) => compare(a.day, b.day) || compare(a.partner, b.partner) || compare(a.outcome, b.outcome))
    },

    async pruneUsageCounts(before: string, limit: number) {
      let deleted = 0
      for (const [credential, days] of usageDays) {
        for (const [row, count] of days) {
          if (deleted >= limit) return deleted
          if (count.day < before) {
            days.delete(row)
            deleted++
          }
        }
        if (days.size === 0) usageDays.delete(credential)
      }
      return deleted
    },

    async grantUserPasscode(record, now, entry): Promise<GrantResult> {
      const key = userKey(record.accountId, record.userId)
      const current = users.get(key)
      if (current !== undefined && isLive(current, now)) return { ok: false, reason: 'already_granted' }
      const recorded = audit.prepare(entry)
      if (current !== undefined) byHash.delete(current.hash)
      users.set(key, { ...record })
      byHash.set(record.hash, { kind: 'user', key })
      closeLeak(record.accountId, 'user', record.userId)
      recorded()
      if (current !== undefined) publish({ type: 'user_passcode', accountId: record.accountId, userId: record.userId })
      return { ok: true, record: { ...record } }
    },

    async resetUserPasscode(accountId, userId, fields, entry) {
      const key = userKey(accountId, userId)
      const current = users.get(key)
      if (current?.revokedAt !== null) return null
      const next: UserPasscodeRecord = { ...current, ...fields }
      const recorded = audit.prepare(entry, (given) => resetUserPasscodeEntry(given, current, next))
      byHash.delete(current.hash)
      users.set(key, next)
      byHash.set(next.hash, { kind: 'user', key })
      closeLeak(accountId, 'user', userId)
      recorded()
      publish({ type: 'user_passcode', accountId, userId })
      return { ...next }
    },

    async revokeUserPasscode(accountId, userId, revokedAt, entry) {
      const key = userKey(accountId, userId)
      const current = users.get(key)
      if (current?.revokedAt !== null) return null
      const recorded = audit.prepare(entry)
      const next: UserPasscodeRecord = { ...current, revokedAt }
      users.set(key, next)
      recorded()
      publish({ type: 'user_passcode', accountId, userId })
      return { ...next }
    },

    async getUserPasscode(accountId, userId) {
      const record = users.get(userKey(accountId, userId))
      return record === undefined ? null : { ...record }
    },

    async listUserPasscodes(accountId) {
      const out: UserPasscodeRecord[] = []
      for (const record of users.values()) if (record.accountId === accountId) out.push({ ...record })
      return out.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0))
    },

    async getAcceptedPasscodes(accountId) {
      return accepted.get(accountId) ?? 'account'
    },

    async setAcceptedPasscodes(accountId, value, entry) {
      const recorded = audit.prepare(entry, (given) => acceptedPasscodesEntry(given, accepted.get(accountId) ?? 'account', value))
      accepted.set(accountId, value)
      recorded()
      publish({ type: 'account', accountId })
    },

    async claimNotifications(request: ClaimRequest): Promise<NotificationClaim[]> {
      const claims: NotificationClaim[] = []
      for (const record of passcodes.values()) {
        if (claims.length >= request.limit) break
        if (record.disabledAt != null) continue
        const kind = dueNotification(record.expiresAt, request.now, request.windowMs)
        if (kind === null) continue
        const expiresAt = record.expiresAt!
        const key = notificationKey(record.id, kind, expiresAt)
        const state = notifications.get(key)
        if (state !== undefined && (state.sentAt !== null || state.claimedUntil > request.now)) continue
        notifications.set(key, { sentAt: null, token: request.token, claimedUntil: request.now + request.leaseMs })
        claims.push({
          passcodeId: record.id,
          accountId: record.accountId,
          name: record.name,
          hint: record.hint,
          kind,
          expiresAt,
          token: request.token,
        })
      }
      return claims
    },

    async completeNotification(claim, sentAt, entry) {
      const state = notifications.get(notificationKey(claim.passcodeId, claim.kind, claim.expiresAt))
      if (state?.token !== claim.token || state.sentAt !== null) return false
      const recorded = audit.prepare(entry)
      state.sentAt = sentAt
      state.token = null
      recorded()
      return true
    },

    async releaseNotification(claim) {
      const key = notificationKey(claim.passcodeId, claim.kind, claim.expiresAt)
      const state = notifications.get(key)
      if (state?.token === claim.token && state.sentAt === null) notifications.delete(key)
    },

    async reportLeak(report, entry) {
      const { accountId, kind, key, at } = report
      if (openLeak(accountId, kind, key) !== undefined) return null
      let name: string | null = null
      let hint: string | null = null
      let action: LeakMark['action']
      let open = true
      if (kind === 'account') {
        const current = ownPasscode(accountId, key)
        if (current === undefined || (current.hash !== report.hash && current.previousHash !== report.hash)) return null
        ;({ name, hint } = current)
        const disabledNow = report.action === 'disable' && current.disabledAt == null
        const recorded = audit.prepare(entry, (given) => leakReportedEntry(given, name, disabledNow))
        if (report.action === 'delete') {
          passcodes.delete(key)
          byHash.delete(current.hash)
          if (current.previousHash !== null) byHash.delete(current.previousHash)
          byAccount.get(accountId)?.delete(key)
          for (const notification of notifications.keys()) {
            if (notification.startsWith(`${key}\u0000`)) notifications.delete(notification)
          }
          action = 'deleted'
          open = false // Nothing is left to mark: the email still goes.
        } else {
          if (current.disabledAt == null) passcodes.set(key, { ...current, disabledAt: at, updatedAt: at })
          action = 'disabled'
        }
        recorded()
        publish({ type: 'account_passcode', accountId, passcodeId: key })
      } else {
        const userKeyed = userKey(accountId, key)
        const current = users.get(userKeyed)
        if (current?.revokedAt !== null || current.hash !== report.hash) return null
        const recorded = audit.prepare(entry, (given) => leakReportedEntry(given, null, false))
        users.set(userKeyed, { ...current, revokedAt: at })
        action = 'revoked'
        recorded()
        publish({ type: 'user_passcode', accountId, userId: key })
      }
      const mark: LeakMark = {
        id: report.id,
        kind,
        accountId,
        key,
        reportedAt: at,
        url: report.url,
        source: report.source,
        action,
        name,
        hint,
        notifiedAt: null,
      }
      leaks.set(mark.id, { mark, open, token: report.token, claimedUntil: report.claimedUntil })
      return { ...mark }
    },

    async listLeakMarks(accountId) {
      const out: LeakMark[] = []
      for (const state of leaks.values()) if (state.open && state.mark.accountId === accountId) out.push({ ...state.mark })
      return out.sort((a, b) => a.reportedAt - b.reportedAt || compare(a.id, b.id))
    },

    async claimLeakNotices({ now, leaseMs, limit, token }) {
      const claims: LeakNoticeClaim[] = []
      const oldestFirst = [...leaks.values()].sort((a, b) => a.mark.reportedAt - b.mark.reportedAt || compare(a.mark.id, b.mark.id))
      for (const state of oldestFirst) {
        if (claims.length >= limit) break
        if (state.mark.notifiedAt !== null || state.claimedUntil > now) continue
        state.token = token
        state.claimedUntil = now + leaseMs
        claims.push({ ...state.mark, token })
      }
      return claims
    },

    async completeLeakNotice(claim, sentAt, entry) {
      const state = leaks.get(claim.id)
      if (state?.token !== claim.token || state.mark.notifiedAt !== null) return false
      const recorded = audit.prepare(entry)
      state.mark = { ...state.mark, notifiedAt: sentAt }
      state.token = null
      recorded()
      return true
    },

    async releaseLeakNotice(claim) {
      const state = leaks.get(claim.id)
      if (state?.token === claim.token && state.mark.notifiedAt === null) {
        state.token = null
        state.claimedUntil = 0
      }
    },

    async getAccountPolicy(accountId) {
      const policy = policies.get(accountId)
      return policy === undefined ? null : { ...policy }
    },

    async setAccountPolicy(accountId, policy, notice, entry) {
      const before = policies.get(accountId) ?? null
      const recorded = audit.prepare(entry, (given) => policyChangedEntry(given, before, policy))
      if (policy === null) policies.delete(accountId)
      else policies.set(accountId, Object.freeze({ ...policy }))
      if (notice === null) {
        // An email not sent yet counted against a policy no longer set.
        if (policyNotices.get(accountId)?.notice.notifiedAt === null) policyNotices.delete(accountId)
      } else {
        policyNotices.set(accountId, {
          notice: { accountId, policy: Object.freeze({ ...notice.policy }), count: notice.count, setAt: notice.setAt, notifiedAt: null },
          token: notice.token,
          claimedUntil: notice.claimedUntil,
        })
      }
      recorded()
      return before === null ? null : { ...before }
    },

    async claimPolicyNotices({ now, leaseMs, limit, token }) {
      const oldestFirst = [...policyNotices.values()]
        .filter((state) => state.notice.notifiedAt === null && state.claimedUntil <= now)
        .sort((a, b) => a.notice.setAt - b.notice.setAt || compare(a.notice.accountId, b.notice.accountId))
        .slice(0, limit)
      return oldestFirst.map((state) => {
        state.token = token
        state.claimedUntil = now + leaseMs
        return { ...state.notice, token }
      })
    },

    async completePolicyNotice(claim, sentAt, entry) {
      const state = policyNotices.get(claim.accountId)
      if (state?.token !== claim.token || state.notice.notifiedAt !== null) return false
      const recorded = audit.prepare(entry)
      state.notice = { ...state.notice, notifiedAt: sentAt }
      state.token = null
      recorded()
      return true
    },

    async releasePolicyNotice(claim) {
      const state = policyNotices.get(claim.accountId)
      if (state?.token === claim.token && state.notice.notifiedAt === null) {
        state.token = null
        state.claimedUntil = 0
      }
    },

    audit: audit.log,
    webhooks: webhooks.store,

    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },

    async close() {
      listeners.clear()
    },
  }
}
