import { GENESIS_HASH, matchesAuditFilter, type AuditEntry, type AuditRecord } from '../../core/audit'
import type { AuditChainPoint } from '../../core/audit-chain'
import { prunedEntry } from '../../core/audit-fields'
import type { AuditAppend, AuditLog } from '../../ports/audit-log'

interface Chain {
  records: AuditRecord[]
  start: AuditChainPoint
  head: AuditChainPoint
}

/** The memory store's audit trail, and how its write methods join a record to a change. */
export interface MemoryAuditLog {
  readonly log: AuditLog
  /**
   * Places the entry (as `fromRow` makes it of the change's row, when given) in its chain
   * and signs it without storing it yet, and returns the function that stores it. A
   * write calls this before it changes anything (it throws for an entry that cannot be
   * encoded) and the returned function after: the store never yields in between, so
   * the change and its record happen together or not at all.
   */
  prepare(append: AuditAppend, fromRow?: (entry: AuditEntry) => AuditEntry): () => AuditRecord
}

const genesis = (): AuditChainPoint => ({ sequence: 0, hash: GENESIS_HASH })

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
      chain = { records: [], start: genesis(), head: genesis() }
      chains.set(accountId, chain)
    }
    return chain
  }
  const place = (chain: Chain, record: AuditRecord): AuditRecord => {
    chain.records.push(record)
    chain.head = { sequence: record.sequence, hash: record.hash }
    return record
  }
  const prepare: MemoryAuditLog['prepare'] = (append, fromRow) => {
    const entry = fromRow === undefined ? append.entry : fromRow(append.entry)
    const chain = chainOf(entry.accountId)
    const record = Object.freeze(structuredClone(append.signer.chain(entry, chain.head)))
    const observed = observe?.(entry)
    return () => {
      place(chain, record)
      observed?.(record)
      return record
    }
  }
  const at = (chain: Chain, sequence: number): AuditRecord | null =>
    structuredClone(chain.records.find((record) => record.sequence === sequence) ?? null)

  const log: AuditLog = {
    async append(append) {
      return structuredClone(prepare(append)())
    },
    async list(accountId, query) {
      const chain = chains.get(accountId)
      if (chain === undefined) return { ends: null, records: [], stray: null, head: null, first: null, pruned: null }
      const records: AuditRecord[] = []
      for (let i = chain.records.length - 1; i >= 0 && records.length < query.limit; i--) {
        const record = chain.records[i]!
        if (query.after !== undefined && record.sequence >= query.after) continue
        if (matchesAuditFilter(record, query)) records.push(structuredClone(record))
      }
      const pruned = chain.records.findLast((record) => record.action === 'audit.pruned')
      const isGenesis = chain.start.sequence === 0
      return {
        ends: { start: { ...chain.start }, head: { ...chain.head } },
        records,
        // Nothing but this module writes the arrays: no row is ever outside its chain.
        stray: null,
        head: at(chain, chain.head.sequence),
        first: at(chain, chain.start.sequence + 1),
        pruned: isGenesis || pruned === undefined ? null : structuredClone(pruned),
      }
    },
    async records(accountId, { from, limit }) {
      const records = chains.get(accountId)?.records ?? []
      return structuredClone(records.filter((record) => from === undefined || record.sequence >= from).slice(0, limit))
    },
    async ends(accountId) {
      const chain = chains.get(accountId)
      return chain === undefined ? null : { start: { ...chain.start }, head: { ...chain.head } }
    },
    async prune(before, { at: now, signer }) {
      let removed = 0
      for (const [accountId, chain] of chains) {
        let cut = -1
        for (let i = 0; i < chain.records.length; i++) if (chain.records[i]!.at < before) cut = i
        if (cut < 0) continue
        const last = chain.records[cut]!
        const from = chain.start
        chain.records.splice(0, cut + 1)
        chain.start = { sequence: last.sequence, hash: last.hash }
        place(chain, Object.freeze(signer.chain(prunedEntry(accountId, now, cut + 1, from, chain.start), chain.head)))
        removed += cut + 1
      }
      return removed
    },
  }
  return { log, prepare }
}
