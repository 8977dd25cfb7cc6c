import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type PasscodeStore, type UsageEntry } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, setup } from '../helpers/service'

/** A memory store that records every usage write, and can be told to fail them. */
function countingStore() {
  const inner = memoryStore()
  const writes: UsageEntry[][] = []
  let failures = 0
  const store: PasscodeStore = {
    ...inner,
    async recordUsage(entries) {
      writes.push([...entries])
      if (failures > 0) {
        failures--
        throw new Error('database went away')
      }
      return inner.recordUsage(entries)
    },
  }
  return { store, writes, failNext: (count: number) => (failures = count) }
}

const headersOf = (accountId: string, value: string) => ({ 'x-service-account-id': accountId, 'x-service-passcode': value })

describe('SPEC 5.27 usage', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('adds no write to a request: one write per interval, one entry per passcode', async () => {
    const { store, writes } = countingStore()
    const { auth, clock } = setup({ store })
    const a = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    clock.advance(1)
    const b = await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 30 })
    for (let i = 0; i < 50; i++) {
      clock.advance(1_000)
      expect((await auth.authenticate({ accountId: 'acc', passcode: a.value })).ok).toBe(true)
      expect((await auth.connect({ headers: headersOf('acc', b.value), partner: 'Acme' })).statusCode).toBe(200)
    }
    expect(writes).toEqual([])
    await vi.advanceTimersByTimeAsync(60_000)
    expect(writes).toHaveLength(1)
    expect(writes[0]).toEqual(
      expect.arrayContaining([
        { kind: 'account', accountId: 'acc', passcodeId: a.passcode.id, at: clock.ms, partner: null },
        { kind: 'account', accountId: 'acc', passcodeId: b.passcode.id, at: clock.ms, partner: 'acme' },
      ]),
    )
    expect(writes[0]).toHaveLength(2)
    // Nothing seen since: no timer, no write.
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    expect(writes).toHaveLength(1)
    const [viewA, viewB] = await auth.passcodes.list(admin, 'acc')
    expect(viewA).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: null, unused: false })
    expect(viewB).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: 'acme', unused: false })
  })

  it('honours flushIntervalMs, and shows uses not yet flushed in the views', async () => {
    const { store, writes } = countingStore()
    const { auth, clock } = setup({ store, usage: { flushIntervalMs: 5_000 } })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    expect(passcode).toMatchObject({ lastUsedAt: null, lastUsedPartner: null, unused: true })
    clock.advance(1_000)
    await auth.connect({ headers: headersOf('acc', value), partner: ' ACME ' })
    expect((await auth.passcodes.list(admin, 'acc'))[0]).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: 'acme' })
    expect(writes).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(5_000)
    expect(writes).toHaveLength(1)
    expect(await store.getAccountPasscode('acc', passcode.id)).toMatchObject({ lastUsedAt: clock.ms, lastUsedPartner: 'acme' })
  })

  it('auth.close() writes what is pending', async () => {
    const { store, writes } = countingStore()
    const { auth } = setup({ store })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.close()
    expect(writes).toHaveLength(1)
    expect((await store.getAccountPasscode('acc', passcode.id))?.lastUsedAt).not.toBeNull()
  })

  it('auth.close() is idempotent, stops every timer and loses no recorded use, even when its first write fails', async () => {
    const { store, writes, failNext } = countingStore()
    const { auth, clock, events } = setup({ store })
    const created = []
    for (const name of ['A', 'B', 'C']) created.push(await auth.passcodes.create(admin, 'acc', { name, expiry: 30 }))
    for (const { value } of created) {
      clock.advance(1_000)
      expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    }
    expect(vi.getTimerCount()).toBe(1)
    failNext(1)
    // Twice at once, and once more after: one close, every call resolves.
    const first = auth.close()
    expect(auth.close()).toBe(first)
    await Promise.all([first, auth.close()])
    await auth.close()
    expect(writes).toHaveLength(2)
    expect(events.filter((event) => event.type === 'usage.flush_failed')).toEqual([expect.objectContaining({ passcodes: 3, dropped: 0 })])
    for (const [index, { passcode }] of created.entries()) {
      expect((await store.getAccountPasscode('acc', passcode.id))?.lastUsedAt).toBe(clock.ms - (created.length - 1 - index) * 1_000)
    }
    // No timer left, and a use after close is not recorded (nothing to write it).
    expect(vi.getTimerCount()).toBe(0)
    expect((await auth.authenticate({ accountId: 'acc', passcode: created[0]!.value })).ok).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    await auth.close()
    expect(writes).toHaveLength(2)
  })

  it('auth.close() stops listening to the store once', async () => {
    const inner = memoryStore()
    const unsubscribed = vi.fn()
    const subscribe: PasscodeStore['subscribe'] = (listener) => {
      const stop = inner.subscribe(listener)
      return () => {
        unsubscribed()
        stop()
      }
    }
    const { auth } = setup({ store: { ...inner, subscribe } })
    await Promise.all([auth.close(), auth.close()])
    await auth.close()
    expect(unsubscribed).toHaveBeenCalledTimes(1)
  })

  it('records user passcodes too, with the partner of their last connect', async () => {
    const { store } = countingStore()
    const { auth, clock } = setup({ store })
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'infinite' } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc')
    await auth.connect({ headers: headersOf('acc', value), partner: 'acme' })
    const used = { lastUsedAt: new Date(clock.ms), lastUsedPartner: 'acme', unused: false }
    expect(await auth.userPasscodes.get(admin, 'acc', 'u_1')).toMatchObject(used)
    // The list shows the use not yet flushed, as get does (the Users page reads the list).
    expect(await auth.userPasscodes.list(admin, 'acc')).toEqual([expect.objectContaining(used)])
    await auth.close()
    expect(await store.getUserPasscode('acc', 'u_1')).toMatchObject({ lastUsedAt: clock.ms, lastUsedPartner: 'acme' })
  })

  it('retries a failed write once with the next flush, then drops it, and says so', async () => {
    const { store, writes, failNext } = countingStore()
    const { auth, events, clock } = setup({ store })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    const usedAt = clock.ms
    failNext(1)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(events.filter((event) => event.type === 'usage.flush_failed')).toEqual([
      expect.objectContaining({ passcodes: 1, dropped: 0, error: 'database went away' }),
    ])
    await vi.advanceTimersByTimeAsync(60_000)
    expect(writes).toHaveLength(2)
    expect((await store.getAccountPasscode('acc', passcode.id))?.lastUsedAt).toBe(usedAt)

    clock.advance(1_000)
    await auth.authenticate({ accountId: 'acc', passcode: value })
    failNext(2)
    await vi.advanceTimersByTimeAsync(120_000)
    expect(writes).toHaveLength(4)
    expect(events.filter((event) => event.type === 'usage.flush_failed').at(-1)).toMatchObject({ passcodes: 1, dropped: 1 })
    // Recency lost, credential intact.
    expect((await store.getAccountPasscode('acc', passcode.id))?.lastUsedAt).toBe(usedAt)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
  })

  it('drops silently the use of a passcode deleted before the flush', async () => {
    const { store, writes } = countingStore()
    const { auth, events } = setup({ store })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(writes).toHaveLength(1)
    expect(events.filter((event) => event.type === 'usage.flush_failed')).toEqual([])
    expect(await auth.passcodes.list(admin, 'acc')).toEqual([])
  })

  it('records nothing for failed attempts, a connect refused for its partner included (SPEC 5.46)', async () => {
    const { store, writes } = countingStore()
    const { auth } = setup({ store })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await auth.authenticate({ accountId: 'other', passcode: value })
    await auth.connect({ headers: headersOf('acc', value), partner: 'not-listed' })
    await auth.connect({ headers: headersOf('acc', value), partner: null })
    await auth.close()
    // The connects verified the credential, then were refused for their partner: not a use.
    expect(writes).toEqual([])
  })

  it('usage: false records nothing', async () => {
    const { store, writes } = countingStore()
    const { auth } = setup({ store, usage: false })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.close()
    expect(writes).toEqual([])
  })

  it('list sorts by last use (unused first) and flags never-used and 90-day-idle passcodes', async () => {
    const { auth, clock } = setup()
    const names = ['Never', 'Old', 'Recent', 'Older']
    const values = new Map<string, string>()
    for (const name of names) {
      values.set(name, (await auth.passcodes.create(admin, 'acc', { name, expiry: 'forever' })).value)
      clock.advance(1)
    }
    const use = (name: string) => auth.authenticate({ accountId: 'acc', passcode: values.get(name)! })
    await use('Older')
    clock.advance(DAY_MS)
    await use('Old')
    clock.advance(89 * DAY_MS)
    await use('Recent')
    await auth.close()
    const listed = await auth.passcodes.list(admin, 'acc', { sortBy: 'lastUsedAt' })
    expect(listed.map((view) => [view.name, view.unused])).toEqual([
      ['Never', true],
      ['Older', true],
      ['Old', false],
      ['Recent', false],
    ])
    expect((await auth.passcodes.list(admin, 'acc')).map((view) => view.name)).toEqual(names)
    await expect(auth.passcodes.list(admin, 'acc', { sortBy: 'name' } as never)).rejects.toMatchObject({ field: 'options.sortBy' })
  })

  it('validates the option', async () => {
    expect(() => setup({ usage: { flushIntervalMs: 0 } })).toThrow(/usage\.flushIntervalMs/)
    expect(() => setup({ usage: { every: 1 } as never })).toThrow(/usage/)
  })
})

describe('SPEC 5.46 last use is true', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  /** A passcode bound to Acme, used once through a connect to Acme: its last use is that connect. */
  async function usedByAcme(options: Partial<Parameters<typeof setup>[0]> = {}) {
    const counting = countingStore()
    const context = setup({ store: counting.store, partners: ['Acme', 'Globex'], ...options })
    const { auth, clock } = context
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Bound', expiry: 'forever', partners: ['acme'] })
    clock.advance(1_000)
    expect((await auth.connect({ headers: headersOf('acc', value), partner: 'acme' })).statusCode).toBe(200)
    const acmeAt = clock.ms
    const view = async () => (await auth.passcodes.list(admin, 'acc'))[0]!
    const stored = async () => {
      const record = await counting.store.getAccountPasscode('acc', passcode.id)
      return { lastUsedAt: record?.lastUsedAt, lastUsedPartner: record?.lastUsedPartner }
    }
    return { ...context, ...counting, value, passcode, acmeAt, view, stored }
  }

  it('a connect refused for its partner (outside the binding, off the whitelist, none) moves neither the time nor the partner', async () => {
    const { auth, clock, value, acmeAt, view, stored } = await usedByAcme()
    const statuses: number[] = []
    for (const partner of ['globex', 'not-listed', null]) {
      clock.advance(1_000)
      statuses.push((await auth.connect({ headers: headersOf('acc', value), partner })).statusCode)
    }
    // Outside the binding and off the whitelist: 403; no partner: 400. Each verified the credential first.
    expect(statuses).toEqual([403, 403, 400])
    expect(await view()).toMatchObject({ lastUsedAt: new Date(acmeAt), lastUsedPartner: 'acme' })
    await auth.close()
    expect(await stored()).toEqual({ lastUsedAt: acmeAt, lastUsedPartner: 'acme' })
  })

  it('a refused request of any other reason (disabled, a value rotated out) moves neither, and each is still counted', async () => {
    const { auth, clock, value, passcode, acmeAt, view, stored } = await usedByAcme()
    await auth.passcodes.disable(admin, 'acc', passcode.id)
    clock.advance(1_000)
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, reason: 'disabled' })
    await auth.passcodes.enable(admin, 'acc', passcode.id)
    await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 1 })
    clock.advance(61_000)
    expect(await auth.connect({ headers: headersOf('acc', value), partner: 'acme' })).toMatchObject({ statusCode: 400 })
    expect(await view()).toMatchObject({ lastUsedAt: new Date(acmeAt), lastUsedPartner: 'acme' })
    await auth.close()
    expect(await stored()).toEqual({ lastUsedAt: acmeAt, lastUsedPartner: 'acme' })
    const { days } = await auth.passcodes.usage(admin, 'acc', passcode.id)
    expect(days).toEqual([expect.objectContaining({ succeeded: 1, disabled: 1, rotatedOut: 1 })])
  })

  it('a refused connect is still counted for usage over time, per partner (SPEC 5.41)', async () => {
    const { auth, clock, value, passcode } = await usedByAcme()
    clock.advance(1_000)
    await auth.connect({ headers: headersOf('acc', value), partner: 'globex' })
    await auth.close()
    const { days } = await auth.passcodes.usage(admin, 'acc', passcode.id)
    expect(days).toEqual([expect.objectContaining({ succeeded: 1, wrongPartner: 1 })])
  })

  it('a success with no partner (a protected route) records no partner, in the view before the flush and in the store after it', async () => {
    const { auth, clock, value, view, stored } = await usedByAcme()
    clock.advance(1_000)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect(await view()).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: null })
    await auth.close()
    expect(await stored()).toEqual({ lastUsedAt: clock.ms, lastUsedPartner: null })
  })

  it('a protected route after a flushed connect clears the stored partner; a connect after it sets one again', async () => {
    const { auth, clock, value, view, stored } = await usedByAcme()
    await vi.advanceTimersByTimeAsync(60_000)
    expect((await stored()).lastUsedPartner).toBe('acme')
    clock.advance(1_000)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await stored()).toEqual({ lastUsedAt: clock.ms, lastUsedPartner: null })
    clock.advance(1_000)
    expect((await auth.connect({ headers: headersOf('acc', value), partner: 'ACME' })).statusCode).toBe(200)
    expect(await view()).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: 'acme' })
    await auth.close()
    expect(await stored()).toEqual({ lastUsedAt: clock.ms, lastUsedPartner: 'acme' })
  })

  it('a protected route after a flushed connect shows no partner in the view before its own flush, and after it', async () => {
    const { auth, clock, value, view, stored } = await usedByAcme()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await stored()).toMatchObject({ lastUsedPartner: 'acme' })
    clock.advance(1_000)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    // The pending use is newer than the stored one: its time and its lack of partner, not the stored connect's partner.
    expect(await view()).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: null })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await stored()).toEqual({ lastUsedAt: clock.ms, lastUsedPartner: null })
    expect(await view()).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: null })
    await auth.close()
  })

  it('a user passcode: a protected route after a flushed connect shows no partner in get and list before its own flush', async () => {
    const { auth, clock } = setup({ partners: ['Acme'] })
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'infinite' } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc')
    clock.advance(1_000)
    expect((await auth.connect({ headers: headersOf('acc', value), partner: 'acme' })).statusCode).toBe(200)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await auth.userPasscodes.get(admin, 'acc', 'u_1')).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: 'acme' })
    clock.advance(1_000)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    const used = { lastUsedAt: new Date(clock.ms), lastUsedPartner: null }
    expect(await auth.userPasscodes.get(admin, 'acc', 'u_1')).toMatchObject(used)
    expect(await auth.userPasscodes.list(admin, 'acc')).toEqual([expect.objectContaining(used)])
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await auth.userPasscodes.get(admin, 'acc', 'u_1')).toMatchObject(used)
    await auth.close()
  })

  it('a failed flush put back under a newer use keeps the newer one whole: its time and its lack of partner', async () => {
    const { auth, clock, value, view, stored, failNext } = await usedByAcme()
    failNext(1)
    await vi.advanceTimersByTimeAsync(60_000)
    clock.advance(1_000)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect(await view()).toMatchObject({ lastUsedAt: new Date(clock.ms), lastUsedPartner: null })
    await auth.close()
    expect(await stored()).toEqual({ lastUsedAt: clock.ms, lastUsedPartner: null })
  })

  it('a warm-cache hit on a protected route clears the partner too', async () => {
    const { auth, clock, value, stored } = await usedByAcme()
    const reader = { header: (source: Record<string, string>, name: string) => source[name], clientAddress: () => undefined }
    clock.advance(1)
    // The connect left the acceptance cache warm: the answer is the principal itself, at once.
    expect(auth.verifyRequest(headersOf('acc', value), reader)).toMatchObject({ kind: 'account', accountId: 'acc' })
    await auth.close()
    expect(await stored()).toEqual({ lastUsedAt: clock.ms, lastUsedPartner: null })
  })
})
