import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../core/passcode-records'
import { creditWebhookEvent } from '../../core/webhook-events'
import type { AccountPasscodePatch, CreateResult, CredentialMatch, GrantResult, UpdateResult, Rehash } from '../../ports/passcode-store'
import {
  acceptedPasscodesEntry,
  deletedPasscodeEntry,
  editedPasscodeEntry,
  resetUserPasscodeEntry,
  rotatedPasscodeEntry,
} from '../../core/audit-fields'
import { memoryAuditLog } from './memory-audit-log'
import { memoryLeaks } from './memory-leaks'
import { memoryLimits } from './memory-limits'
import { memoryNotifications } from './memory-notifications'
import { memoryPolicies } from './memory-policies'
import { memoryState, userKey } from './memory-state'
import { memoryUsage } from './memory-usage'
import { memoryWebhooks } from './memory-webhooks'
import type { CompletePasscodeStore } from '../../ports/passcode-store'

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
  const state = memoryState()
  const { passcodes, byHash, byAccount, users, accepted, notifications, listeners } = state
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
  const { publish, accountIds, nameTaken, ownPasscode, isLive, openLeak, closeLeak } = state

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
    // SPEC §5.53: a crossing's event is stored in the step of the lease that crossed.
    crossed(notice) {
      const hint = notice.kind === 'account' ? notice.hint : (users.get(userKey(notice.accountId, notice.key))?.hint ?? null)
      webhooks.enqueue(notice.accountId, creditWebhookEvent({ ...notice, hint }))
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
      // SPEC §5.45: a leaked value (an open mark, or reported and enabled since) gets no overlap, whatever was asked.
      const leaked = openLeak(accountId, 'account', passcodeId) !== undefined || current.valueLeaked === true
      const keepsCurrent = rotation.previousHashEndsAt !== null && !leaked
      // The replaced hash's pepper says nothing about the new one; it is the previous hash's now (SPEC §5.47).
      // The new value is not leaked.
      const { pepperId: replaced, previousPepperId: _older, valueLeaked: _leaked, ...unchanged } = current
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

    ...memoryUsage(state),
    ...memoryNotifications(state, audit),
    ...memoryLeaks(state, audit),
    ...memoryPolicies(state, audit),
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
