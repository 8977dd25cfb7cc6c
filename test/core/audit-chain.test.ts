import { describe, expect, it, vi } from 'vitest'
import { GENESIS_HASH, type AuditRecord } from '../../src/core/audit'
import { verifyAuditChain, type AuditChainOptions } from '../../src/core/audit-chain'
import { auditKeyring } from '../../src/core/audit-keys'

const keys = auditKeyring([{ id: 'k1', key: new Uint8Array(32).fill(1) }])
const GENESIS = { sequence: 0, hash: GENESIS_HASH }

/** An account with no row at all. */
async function* noRows(): AsyncGenerator<AuditRecord> {
  yield* [] as AuditRecord[]
}

const verify = (options: Omit<AuditChainOptions, 'keys'>) => verifyAuditChain(noRows(), { keys, ...options })

describe('SPEC 5.44: a chain lost whole (no head row, no row)', () => {
  it('is a lost head when the account keeps what a write made, an empty chain when it keeps nothing', async () => {
    expect(await verify({ ends: null, written: async () => true })).toEqual({ ok: false, at: 1, reason: 'head_missing' })
    expect(await verify({ ends: null, written: async () => false })).toEqual({ ok: true, records: 0, unkeyed: 0, head: GENESIS })
    // Without the question, as before: nothing tells.
    expect(await verify({ ends: null })).toEqual({ ok: true, records: 0, unkeyed: 0, head: GENESIS })
  })

  it('asks only when there is no head row: a head row at the genesis is an empty chain of its own', async () => {
    const written = vi.fn(async () => true)
    expect(await verify({ ends: { start: GENESIS, head: GENESIS }, written })).toEqual({ ok: true, records: 0, unkeyed: 0, head: GENESIS })
    expect(written).not.toHaveBeenCalled()
  })

  it('lets an anchor past the genesis name the tail that went, before asking', async () => {
    const written = vi.fn(async () => true)
    expect(await verify({ ends: null, written, anchor: { sequence: 5, hash: 'a'.repeat(64) } })).toEqual({ ok: false, at: 1, reason: 'tail_removed' })
    expect(written).not.toHaveBeenCalled()
  })
})
