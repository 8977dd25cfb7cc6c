import { afterEach, describe, expect, it, vi } from 'vitest'
import { createPasscodeHasher, pepperId } from '../../src/core/hashing'
import { generatePasscode } from '../../src/core/passcode-format'
import { createPasscodeAuth, InvalidOptionsError, type AuditEvent, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { writeAfterReads } from '../conformance/store/interleave'

/** The events but `config.no_audit_key` (SPEC §5.44), which a store with an audit trail and no `auditKeys` adds in production. */
const withoutAuditKeyEvent = (events: AuditEvent[]) => events.filter((event) => event.type !== 'config.no_audit_key')

describe('SPEC 5.28 the pepper option', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('reports running without a pepper with NODE_ENV=production once, through onEvent, with no secret', () => {
    vi.stubEnv('NODE_ENV', 'production')
    for (const pepper of [undefined, [null, 'p'.repeat(32)]] as const) {
      const events: AuditEvent[] = []
      createPasscodeAuth({ store: memoryStore(), onEvent: (event) => void events.push(event), ...(pepper && { pepper }) })
      expect(withoutAuditKeyEvent(events)).toEqual([
        { type: 'config.no_pepper', at: expect.any(Date), message: expect.stringContaining('plain SHA-256') },
      ])
    }
    const events: AuditEvent[] = []
    createPasscodeAuth({ store: memoryStore(), pepper: ['p'.repeat(32), null], onEvent: (event) => void events.push(event) })
    expect(withoutAuditKeyEvent(events)).toEqual([])
  })

  it('reports nothing outside production', () => {
    vi.stubEnv('NODE_ENV', 'development')
    const events: AuditEvent[] = []
    createPasscodeAuth({ store: memoryStore(), onEvent: (event) => void events.push(event) })
    expect(events).toEqual([])
  })

  it('validates the list: 1 to 8 peppers of 16 bytes or more, null allowed, none twice', () => {
    const create = (pepper: unknown) => () => createPasscodeAuth({ store: memoryStore(), pepper: pepper as string })
    expect(create(['p'.repeat(16), null])).not.toThrow()
    expect(create([null])).not.toThrow()
    expect(create([])).toThrow(InvalidOptionsError)
    expect(create(['short'])).toThrow(/pepper/)
    expect(create(['p'.repeat(16), 'p'.repeat(16)])).toThrow(/twice/)
    expect(create([null, null])).toThrow(/twice/)
    expect(create(Array.from({ length: 9 }, (_, i) => `${i}`.repeat(16)))).toThrow(InvalidOptionsError)
  })

  it('validates the roles of a rolling change (SPEC 5.34): 8 peppers at most in all, none twice across the roles', () => {
    const create = (pepper: unknown) => () => createPasscodeAuth({ store: memoryStore(), pepper: pepper as string })
    const [a, b, c] = ['a'.repeat(16), 'b'.repeat(16), 'c'.repeat(16)]
    expect(create({ current: a })).not.toThrow()
    expect(create({ current: a, next: [b] })).not.toThrow()
    expect(create({ current: b, previous: [a, null], next: [c] })).not.toThrow()
    expect(create({ current: null, next: [a] })).not.toThrow()
    expect(create({ current: a, next: [a] })).toThrow(/`pepper`: must not hold the same pepper twice/)
    expect(create({ current: a, next: [b], previous: [b] })).toThrow(/twice/)
    expect(create({ current: a, next: ['short'] })).toThrow(/`pepper\.next\.0`: must be at least 16 bytes/)
    expect(create({ next: [a] })).toThrow(/pepper/)
    expect(create({ current: a, later: [b] })).toThrow(/unknown option `later`/)
    expect(create({ current: a, previous: Array.from({ length: 8 }, (_, i) => `${i}`.repeat(16)) })).toThrow(/at most 8 peppers in all/)
    expect(create({ current: a, previous: Array.from({ length: 6 }, (_, i) => `${i}`.repeat(16)), next: [b] })).not.toThrow()
  })

  it('reports running without a pepper for { current: null } too', () => {
    vi.stubEnv('NODE_ENV', 'production')
    const events: AuditEvent[] = []
    createPasscodeAuth({ store: memoryStore(), pepper: { current: null, next: ['p'.repeat(32)] }, onEvent: (event) => void events.push(event) })
    expect(withoutAuditKeyEvent(events)).toEqual([expect.objectContaining({ type: 'config.no_pepper' })])
  })

  it('throws a ConfigurationError for the report when the store cannot count', async () => {
    // Pepper rotation is one part, all or nothing: a store without the count has no rehash either.
    const { countHashesByPepper: _count, rehashCredential: _rehash, ...store } = memoryStore()
    const auth = createPasscodeAuth({ store })
    await expect(auth.pepperReport()).rejects.toMatchObject({ code: 'ERR_CONFIGURATION' })
  })
})

describe('SPEC 5.34 the verification read under several peppers', () => {
  const [old, fresh] = ['o'.repeat(32), 'f'.repeat(32)]
  const admin = { userId: 'u_admin', role: 'admin' } as const

  /** The memory store, recording each verification read by method and hashes; `atomic: false` hides `findCredentialsByHashes`. */
  function recordingStore(atomic: boolean) {
    const inner = memoryStore()
    const reads: string[] = []
    const { findCredentialsByHashes: _, ...rest } = inner
    const store: PasscodeStore = {
      ...(atomic ? inner : rest),
      findCredentialByHash: (hash) => (reads.push(`one ${hash}`), inner.findCredentialByHash(hash)),
      ...(atomic && { findCredentialsByHashes: (hashes) => (reads.push(`all ${hashes.join(' ')}`), inner.findCredentialsByHashes(hashes)) }),
    }
    return { store, reads }
  }

  it('looks a value up once with one pepper, and once for all its hashes with several (current, previous, next)', async () => {
    const { store, reads } = recordingStore(true)
    const value = generatePasscode()
    const [a, b, c] = ['a'.repeat(16), 'b'.repeat(16), 'c'.repeat(16)]
    const hash = (pepper: string) => createPasscodeHasher(pepper)(value)
    await createPasscodeAuth({ store, pepper: a, cache: false }).authenticate({ accountId: 'acc_1', passcode: value })
    expect(reads).toEqual([`one ${hash(a)}`])
    reads.length = 0
    await createPasscodeAuth({ store, pepper: { current: b, previous: [a], next: [c] }, cache: false }).authenticate({
      accountId: 'acc_1',
      passcode: value,
    })
    expect(reads).toEqual([`all ${hash(b)} ${hash(a)} ${hash(c)}`])
  })

  it('without findCredentialsByHashes reads one hash at a time in the order rows move: previous, current, next', async () => {
    const { store, reads } = recordingStore(false)
    const [a, b, c] = ['a'.repeat(16), 'b'.repeat(16), 'c'.repeat(16)]
    const value = generatePasscode()
    const hash = (pepper: string) => createPasscodeHasher(pepper)(value)
    const outcome = await createPasscodeAuth({ store, pepper: { current: b, previous: [a], next: [c] }, cache: false }).authenticate({
      accountId: 'acc_1',
      passcode: value,
    })
    expect(outcome).toMatchObject({ ok: false, reason: 'unknown_passcode' })
    expect(reads).toEqual([`one ${hash(a)}`, `one ${hash(b)}`, `one ${hash(c)}`])
  })

  it.each([
    ['with findCredentialsByHashes', true],
    ['without it', false],
  ])('%s, a re-hash by another instance at any point among the reads refuses nothing, on either step of the change', async (_, atomic) => {
    const { store } = recordingStore(atomic)
    const creator = createPasscodeAuth({ store, pepper: old })
    const refused: string[] = []
    for (const [step, pepper] of [
      ['step 1', { current: old, next: [fresh] }],
      ['step 2', { current: fresh, previous: [old] }],
    ] as const) {
      for (let after = 0; ; after++) {
        const { passcode, value } = await creator.passcodes.create(admin, 'acc_1', { name: `${step} ${after}`, expiry: 90 })
        const fromTo = { fromHash: createPasscodeHasher(old)(value), toHash: createPasscodeHasher(fresh)(value) }
        const view = writeAfterReads(store, after, () =>
          store.rehashCredential({ kind: 'account', accountId: 'acc_1', id: passcode.id, pepperId: pepperId(fresh), ...fromTo }),
        )
        const outcome = await createPasscodeAuth({ store: view.store, pepper, cache: false }).authenticate({ accountId: 'acc_1', passcode: value })
        if (!outcome.ok) refused.push(`${step}, after ${after} of ${view.reads} reads: ${outcome.reason}`)
        if (!view.wrote || after >= view.reads) break
      }
    }
    expect(refused).toEqual([])
  })
})
