import { chainAuditEntry, GENESIS_HASH, type AuditEntry, type AuditRecord } from '../../core/audit'
import type { AuditChainPoint } from '../../core/audit-chain'
import type { AuditLog, AuditQuery } from '../../ports/audit-log'

interface Chain {
  records: AuditRecord[]
  start: AuditChainPoint
  head: AuditChainPoint
}

/** The memory store's audit trail, and how its write methods join a record to a change. */
export interface MemoryAuditLog {
  readonly log: AuditLog
  /**
   * Places the entry in its chain without storing it yet and returns the function that
   * stores it. A write calls this before it changes anything (it throws for an entry
   * that cannot be encoded) and the returned function after: the store never yields in
   * between, so the change and its record happen together or not at all.
   */
  prepare(entry: AuditEntry | undefined): () => AuditRecord | undefined
}

const matches = (record: AuditRecord, query: AuditQuery): boolean =>
  (query.actions === undefined || query.actions.includes(record.action)) &&
  (query.targetId === undefined || ('id' in record.target && record.target.id === query.targetId)) &&
  (query.actorUserId === undefined || (record.actor.type === 'user' && record.actor.userId === query.actorUserId)) &&
  (query.from === undefined || record.at >= query.from) &&
  (query.to === undefined || record.at < query.to)

/**
 * Told of each entry when a write prepares it, and of its record (through the function
 * it returns) when the write stores it, in the same synchronous step: the webhooks'
 * outbox makes the record's events there (SPEC §5.53).
 */
export type AuditObserver = (entry: AuditEntry) => (record: AuditRecord) => void

/** An audit trail in memory: one array per account, in sequence order. */
export function memoryAuditLog(observe?: AuditObserver): MemoryAuditLog {
  const chains = new Map<string, Chain>()
  const chainOf = (accountId: string): Chain => {
    let chain = chains.get(accountId)
    if (chain === undefined) {
      const genesis = { sequence: 0, hash: GENESIS_HASH }
      chain = { records: [], start: genesis, head: genesis }
      chains.set(accountId, chain)
    }
    return chain
  }
  const prepare = (entry: AuditEntry | undefined): (() => AuditRecord | undefined) => {
    if (entry === undefined) return () => undefined
    const chain = chainOf(entry.accountId)
    const record = Object.freeze(structuredClone(chainAuditEntry(entry, chain.head)))
    const observed = observe?.(entry)
    return () => {
      chain.records.push(record)
      chain.head = { sequence: record.sequence, hash: record.hash }
      observed?.(record)
      return record
    }
  }

  const log: AuditLog = {
    async append(entry) {
      return structuredClone(prepare(entry)()!)
    },
    async list(accountId, query) {
      const records = chains.get(accountId)?.records ?? []
      const out: AuditRecord[] = []
      const newest = query.order === 'newest'
      for (let i = newest ? records.length - 1 : 0; newest ? i >= 0 : i < records.length; i += newest ? -1 : 1) {
        const record = records[i]!
        if (query.after !== undefined && (newest ? record.sequence >= query.after : record.sequence <= query.after)) continue
        if (!matches(record, query)) continue
        out.push(structuredClone(record))
        if (out.length >= query.limit) break
      }
      return out
    },
    async ends(accountId) {
      const chain = chains.get(accountId)
      const genesis = { sequence: 0, hash: GENESIS_HASH }
      return { start: { ...(chain?.start ?? genesis) }, head: { ...(chain?.head ?? genesis) } }
    },
    async prune(before) {
      let removed = 0
      for (const chain of chains.values()) {
        let cut = -1
        for (let i = 0; i < chain.records.length; i++) if (chain.records[i]!.at < before) cut = i
        if (cut < 0) continue
        const last = chain.records[cut]!
        chain.records.splice(0, cut + 1)
        chain.start = { sequence: last.sequence, hash: last.hash }
        removed += cut + 1
      }
      return removed
    },
  }
  return { log, prepare }
}
