import type { CompletePasscodeStore, UsageCount, UsageEntry } from '../../ports/passcode-store'
import { compare, type MemoryState, userKey } from './memory-state'

/** The memory store's usage: each credential's last use and its daily counts (SPEC §5.41). */
export function memoryUsage(
  state: MemoryState,
): Pick<CompletePasscodeStore, 'recordUsage' | 'recordUsageCounts' | 'listUsageCounts' | 'pruneUsageCounts'> {
  const { passcodes, users, usageDays, ownPasscode } = state
  return {
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
  }
}
