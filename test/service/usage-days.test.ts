import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import type { PasscodeStore, UsageCount } from '../../src/index'
import { admin, member, setup } from '../helpers/service'
import { usageDay } from '../helpers/usage-days'

const headersOf = (accountId: string, value: string) => ({ 'x-service-account-id': accountId, 'x-service-passcode': value })

/** A memory store that records every write of daily counts. */
function countingStore() {
  const inner = memoryStore()
  const writes: UsageCount[][] = []
  const store: PasscodeStore = {
    ...inner,
    async recordUsageCounts(counts: readonly UsageCount[]) {
      writes.push([...counts])
      return inner.recordUsageCounts(counts)
    },
  }
  return { store, writes }
}

describe('SPEC 5.41 usage over time', () => {
  it('counts successes and each kind of matched refusal, per day and partner, in one write per flush', async () => {
    const { store, writes } = countingStore()
    const { auth, clock } = setup({ store, partners: ['Acme', 'Beta'] })
    const day1 = new Date(clock.ms).toISOString().slice(0, 10)
    const plain = await auth.passcodes.create(admin, 'acc', { name: 'Plain', expiry: 1 })
    const bound = await auth.passcodes.create(admin, 'acc', { name: 'Bound', expiry: 30, partners: ['acme'] })
    const rotated = await auth.passcodes.create(admin, 'acc', { name: 'Rotated', expiry: 30 })
    const disabled = await auth.passcodes.create(admin, 'acc', { name: 'Disabled', expiry: 30 })
    const oldValue = rotated.value
    await auth.passcodes.rotate(admin, 'acc', rotated.passcode.id, { overlapMinutes: 1 })
    await auth.passcodes.disable(admin, 'acc', disabled.passcode.id)
    clock.advance(2 * 60_000)

    // Repeats go through the verification and refusal caches: each request counts once.
    for (let i = 0; i < 3; i++) {
      expect((await auth.authenticate({ accountId: 'acc', passcode: plain.value })).ok).toBe(true)
      expect((await auth.authenticate({ accountId: 'acc', passcode: oldValue })).ok).toBe(false)
      expect((await auth.authenticate({ accountId: 'acc', passcode: disabled.value })).ok).toBe(false)
      expect((await auth.connect({ headers: headersOf('acc', bound.value), partner: ' ACME ' })).statusCode).toBe(200)
      expect((await auth.connect({ headers: headersOf('acc', bound.value), partner: 'beta' })).statusCode).toBe(403)
    }
    expect((await auth.connect({ headers: headersOf('acc', bound.value), partner: 'nobody' })).statusCode).toBe(403)
    expect((await auth.connect({ headers: headersOf('acc', bound.value), partner: null })).statusCode).toBe(400)
    // Not counted: another account named with the value, a value that matches nothing.
    expect((await auth.authenticate({ accountId: 'other', passcode: plain.value })).ok).toBe(false)
    expect((await auth.authenticate({ accountId: 'other', passcode: disabled.value })).ok).toBe(false)

    clock.advance(DAY_MS)
    const day2 = new Date(clock.ms).toISOString().slice(0, 10)
    for (let i = 0; i < 4; i++) expect(await auth.authenticate({ accountId: 'acc', passcode: plain.value })).toMatchObject({ statusCode: 401 })

    expect(writes).toEqual([])
    await auth.close()
    expect(writes).toHaveLength(1)

    expect((await auth.passcodes.usage(member, 'acc', plain.passcode.id)).days).toEqual([
      usageDay(day1, { succeeded: 3 }),
      usageDay(day2, { expired: 4 }),
    ])
    expect((await auth.passcodes.usage(member, 'acc', rotated.passcode.id)).days).toEqual([usageDay(day1, { rotatedOut: 3 })])
    expect((await auth.passcodes.usage(member, 'acc', disabled.passcode.id)).days).toEqual([usageDay(day1, { disabled: 3 })])
    expect((await auth.passcodes.usage(member, 'acc', bound.passcode.id)).days).toEqual([
      usageDay(day1, {
        succeeded: 3,
        wrongPartner: 5,
        partners: [
          { partner: 'acme', succeeded: 3, wrongPartner: 0 },
          { partner: 'beta', succeeded: 0, wrongPartner: 3 },
        ],
      }),
    ])
    const usage = await auth.passcodes.usage(member, 'acc', plain.passcode.id)
    expect(usage.to).toBe(day2)
    expect(usage.from).toBe(new Date(clock.ms - 89 * DAY_MS).toISOString().slice(0, 10))
  })

  it('counts a user passcode: successes, revoked', async () => {
    const { auth } = setup()
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await auth.userPasscodes.grant(admin, 'acc', 'u_7', { validity: { type: 'infinite' } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_7', role: 'member' }, 'acc')
    for (let i = 0; i < 5; i++) expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect((await auth.connect({ headers: headersOf('acc', value), partner: 'acme' })).statusCode).toBe(200)
    await auth.userPasscodes.revoke(admin, 'acc', 'u_7')
    for (let i = 0; i < 2; i++) expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(false)
    await auth.close()
    const [day] = (await auth.userPasscodes.usage(member, 'acc', 'u_7')).days
    expect(day).toMatchObject({ succeeded: 6, revoked: 2, partners: [{ partner: 'acme', succeeded: 1, wrongPartner: 0 }] })
    await expect(auth.userPasscodes.usage(member, 'acc', 'u_8')).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' })
  })

  it('counts a matched refusal the refusal cache answers, also when another account filled the entry', async () => {
    const { auth } = setup()
    const disabled = await auth.passcodes.create(admin, 'acc', { name: 'Disabled', expiry: 30 })
    await auth.passcodes.disable(admin, 'acc', disabled.passcode.id)
    // The first read is another account's: the entry it leaves must still count the owner's refusals.
    expect((await auth.authenticate({ accountId: 'other', passcode: disabled.value })).ok).toBe(false)
    for (let i = 0; i < 3; i++) expect((await auth.authenticate({ accountId: 'acc', passcode: disabled.value })).ok).toBe(false)
    await auth.close()
    const [day] = (await auth.passcodes.usage(member, 'acc', disabled.passcode.id)).days
    expect(day).toMatchObject({ succeeded: 0, disabled: 3 })
  })

  it('adds up the counts of two instances on one store, and close() loses nothing', async () => {
    const store = memoryStore()
    const one = setup({ store })
    const two = setup({ store })
    const created = await one.auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    for (let i = 0; i < 7; i++) await one.auth.authenticate({ accountId: 'acc', passcode: created.value })
    for (let i = 0; i < 5; i++) await two.auth.authenticate({ accountId: 'acc', passcode: created.value })
    await Promise.all([one.auth.close(), two.auth.close()])
    const { days } = await one.auth.passcodes.usage(admin, 'acc', created.passcode.id)
    expect(days).toEqual([expect.objectContaining({ succeeded: 12 })])
  })

  it('a failed write of the counts is written once by the retry, never twice', async () => {
    const inner = memoryStore()
    let failures = 1
    const store: PasscodeStore = {
      ...inner,
      async recordUsageCounts(counts: readonly UsageCount[]) {
        if (failures-- > 0) throw new Error('database went away')
        return inner.recordUsageCounts(counts)
      },
    }
    const { auth } = setup({ store })
    const created = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    for (let i = 0; i < 4; i++) await auth.authenticate({ accountId: 'acc', passcode: created.value })
    await auth.close()
    expect((await auth.passcodes.usage(admin, 'acc', created.passcode.id)).days).toEqual([expect.objectContaining({ succeeded: 4 })])
  })

  it('answers ERR_NOT_FOUND for a passcode of another account', async () => {
    const { auth } = setup()
    const created = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await expect(auth.passcodes.usage(member, 'other', created.passcode.id)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' })
  })

  it('prunes days older than usage.retentionDays after a flush, in bounded batches', async () => {
    const store = memoryStore()
    const { auth, clock } = setup({ store, usage: { flushIntervalMs: 60_000, retentionDays: 2 } })
    const created = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    const old = { kind: 'account', accountId: 'acc', key: created.passcode.id, partner: '', outcome: 'succeeded', n: 1 } as const
    const rows = Array.from({ length: 2500 }, (_, i) => ({ ...old, partner: `p${i}`, day: '2025-12-01' }))
    await store.recordUsageCounts([...rows, { ...old, day: new Date(clock.ms - DAY_MS).toISOString().slice(0, 10) }])
    await auth.authenticate({ accountId: 'acc', passcode: created.value })
    await auth.close()
    const { days } = await auth.passcodes.usage(admin, 'acc', created.passcode.id)
    expect(days.map((day) => [day.date, day.succeeded])).toEqual([
      [new Date(clock.ms - DAY_MS).toISOString().slice(0, 10), 1],
      [new Date(clock.ms).toISOString().slice(0, 10), 1],
    ])
    expect(await store.pruneUsageCounts('2025-12-31', 1000)).toBe(0)
  })
})
