import { describe, expect, it, vi } from 'vitest'
import { InvalidInputError, type AuthOutcome } from '../../src/index'
import { createManagementApi } from '../../src/dashboard/index'
import { memoryStore } from '../../src/memory'
import { admin, member, setup } from '../helpers/service'
import { everyone, scriptedMailer } from './notify-fixtures'

/** SPEC §5.50 through the service on the memory store: settings, the two 429s, exactness across instances. */

const RATE = { status: 'fail', error: 'Rate limit exceeded', code: 429 }
const CREDITS = { status: 'fail', error: 'Credits exhausted', code: 429 }
const admitted = (outcomes: readonly AuthOutcome[]) => outcomes.filter((outcome) => outcome.ok).length

describe('SPEC 5.50 limits and credits per passcode', () => {
  it('lists fewest credits left first, passcodes without credits last, through the management API (GET /passcodes?sortBy=creditsRemaining)', async () => {
    const { auth } = setup()
    for (const [name, credits] of [
      ['Plenty', 500],
      ['None set', undefined],
      ['Few', 3],
      ['Some', 40],
    ] as const) {
      await auth.passcodes.create(admin, 'acc', { name, expiry: 90, ...(credits !== undefined && { credits: { remaining: credits } }) })
    }
    const api = createManagementApi(auth)
    const list = (query: string) =>
      api.handle({ method: 'GET', path: '/passcodes', query, header: () => undefined, body: async () => ({ text: '' }) }, () => ({
        accountId: 'acc',
        actor: member,
      }))
    const sorted = await list('sortBy=creditsRemaining')
    expect(sorted.statusCode).toBe(200)
    const names = (JSON.parse(sorted.body) as { passcodes: { name: string; credits: { remaining: number } | null }[] }).passcodes
    expect(names.map((view) => [view.name, view.credits?.remaining ?? null])).toEqual([
      ['Few', 3],
      ['Some', 40],
      ['Plenty', 500],
      ['None set', null],
    ])
    expect((await list('sortBy=fewest')).statusCode).toBe(400)
    await auth.close()
  })

  it('spends one credit per admitted request, then answers 429 "Credits exhausted" with no Retry-After without a refill', async () => {
    const { auth } = setup()
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 3 } })
    expect(passcode.credits).toMatchObject({ remaining: 3, refill: null, nextRefillAt: null })
    const outcomes: AuthOutcome[] = []
    for (let i = 0; i < 5; i++) outcomes.push(await auth.authenticate({ accountId: 'acc', passcode: value }))
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, false, false])
    expect(outcomes.slice(0, 3).map((outcome) => outcome.ok && outcome.principal.kind === 'account' && outcome.principal.credits?.remaining)).toEqual(
      [2, 1, 0],
    )
    const refused = outcomes[3]!
    expect(refused).toMatchObject({ ok: false, statusCode: 429, body: CREDITS })
    expect(!refused.ok && refused.headers).toEqual({ 'ratelimit-policy': '"credits";q=3', ratelimit: '"credits";r=0' })
    await auth.close()
  })

  it('refills at the start of the UTC interval, and Retry-After says when', async () => {
    const { auth, clock } = setup()
    clock.set(Date.UTC(2026, 0, 1, 23, 59, 0))
    const { value } = await auth.passcodes.create(admin, 'acc', {
      name: 'Acme',
      expiry: 90,
      credits: { remaining: 1, refill: { amount: 2, interval: 'day' } },
    })
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    const refused = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(refused).toMatchObject({
      ok: false,
      body: CREDITS,
      headers: { 'retry-after': '60', ratelimit: '"credits";r=0;t=60', 'ratelimit-policy': '"credits";q=2;w=86400' },
    })
    clock.set(Date.UTC(2026, 0, 2, 0, 0, 1))
    const after = [await auth.authenticate({ accountId: 'acc', passcode: value }), await auth.authenticate({ accountId: 'acc', passcode: value })]
    expect(admitted(after)).toBe(2)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(false)
    await auth.close()
  })

  it('admits at most max per fixed window with 429 "Rate limit exceeded", Retry-After and RateLimit headers', async () => {
    const { auth, clock } = setup()
    clock.set(Date.UTC(2026, 0, 1, 0, 0, 10))
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, rateLimit: { max: 3, windowSeconds: 60 } })
    const outcomes: AuthOutcome[] = []
    for (let i = 0; i < 5; i++) outcomes.push(await auth.authenticate({ accountId: 'acc', passcode: value }))
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, false, false])
    expect(outcomes[3]).toMatchObject({
      statusCode: 429,
      body: RATE,
      headers: { 'retry-after': '50', 'ratelimit-policy': '"rate";q=3;w=60', ratelimit: '"rate";r=0;t=50' },
    })
    clock.advance(50_000)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    await auth.close()
  })

  it('a lease for a new window only (credits still held) does not mark the credits as exhausted', async () => {
    // Both limits: the window turns while this instance still holds a credit, so the next lease asks for slots only.
    const { auth, clock } = setup()
    clock.set(Date.UTC(2026, 0, 1, 12, 0, 0))
    const { value } = await auth.passcodes.create(admin, 'acc', {
      name: 'Acme',
      expiry: 90,
      rateLimit: { max: 100, windowSeconds: 1 },
      credits: { remaining: 1_000 },
    })
    const call = () => auth.authenticate({ accountId: 'acc', passcode: value })
    const outcomes: AuthOutcome[] = [await call(), await call()]
    clock.set(Date.UTC(2026, 0, 1, 12, 0, 1))
    for (let i = 0; i < 6; i++) outcomes.push(await call())
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([])
    await auth.close()
  })

  it('counts the 429s in usage over time, per outcome', async () => {
    const { auth } = setup()
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 1 } })
    for (let i = 0; i < 3; i++) await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.close()
    const usage = await auth.passcodes.usage(member, 'acc', passcode.id)
    expect(usage.days.at(-1)).toMatchObject({ succeeded: 1, creditsExhausted: 2, rateLimited: 0 })
  })

  it('spends nothing on a request refused for any other reason (a partner off the whitelist on connect)', async () => {
    const { auth } = setup()
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 2 } })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    for (let i = 0; i < 3; i++) expect((await auth.connect({ headers, partner: 'Nobody' })).statusCode).toBe(403)
    expect((await auth.connect({ headers, partner: 'Acme' })).statusCode).toBe(200)
    expect((await auth.connect({ headers, partner: 'Acme' })).statusCode).toBe(200)
    expect(await auth.connect({ headers, partner: 'Acme' })).toMatchObject({ statusCode: 429, body: CREDITS })
    await auth.close()
    expect((await auth.passcodes.list(member, 'acc')).find((view) => view.id === passcode.id)?.credits?.remaining).toBe(0)
  })

  it('is edited, removed and audited; a new setting of credits starts a new balance', async () => {
    const { auth, events } = setup()
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 1 } })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(false)
    const edited = await auth.passcodes.update(admin, 'acc', passcode.id, { credits: { remaining: 5 }, rateLimit: { max: 10, windowSeconds: 1 } })
    expect(edited).toMatchObject({ credits: { remaining: 5 }, rateLimit: { max: 10, windowSeconds: 1 } })
    expect(events.at(-1)).toMatchObject({ type: 'passcode.updated', changed: ['rateLimit', 'credits'] })
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    const removed = await auth.passcodes.update(admin, 'acc', passcode.id, { credits: null, rateLimit: null })
    expect(removed).toMatchObject({ credits: null, rateLimit: null })
    for (let i = 0; i < 20; i++) expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    const log = await auth.audit.list(admin, 'acc')
    const updates = log.records.filter((entry) => entry.action === 'passcode.updated').map((entry) => entry.changes)
    expect(updates).toMatchObject([
      { credits: { before: 5, after: null }, rateLimit: { before: '10/1s', after: null } },
      { credits: { before: 1, after: 5 }, rateLimit: { before: null, after: '10/1s' } },
    ])
    await auth.close()
  })

  it('is set at grant on a user passcode', async () => {
    const { auth } = setup()
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    const view = await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' }, credits: { remaining: 1 } })
    expect(view.credits).toMatchObject({ remaining: 1 })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u1', role: 'member' }, 'acc')
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ statusCode: 429, body: CREDITS })
    await auth.close()
  })

  it('refuses bad input with a validation error naming the field, and writes nothing', async () => {
    const { auth } = setup()
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ credits: { remaining: -1 } }, /credits\.remaining/],
      [{ credits: { remaining: 1.5 } }, /credits\.remaining/],
      [{ credits: { remaining: 10 ** 12 + 1 } }, /credits\.remaining/],
      [{ credits: { remaining: 1, refill: { interval: 'day' } } }, /credits\.refill\.amount/],
      [{ credits: { remaining: 1, refill: { amount: 1, interval: 'year' } } }, /credits\.refill\.interval/],
      [{ rateLimit: { max: 0, windowSeconds: 1 } }, /rateLimit\.max/],
      [{ rateLimit: { max: 1, windowSeconds: 0 } }, /rateLimit\.windowSeconds/],
      [{ rateLimit: { max: 1, windowSeconds: 86_401 } }, /rateLimit\.windowSeconds/],
      [{ rateLimit: { max: 1.5, windowSeconds: 1 } }, /rateLimit\.max/],
    ]
    for (const [fields, field] of bad) {
      const error = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, ...fields }).catch((caught: unknown) => caught)
      expect(error, JSON.stringify(fields)).toBeInstanceOf(InvalidInputError)
      expect((error as Error).message).toMatch(field)
    }
    expect(await auth.passcodes.list(admin, 'acc')).toEqual([])
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { credits: { remaining: -5 } })).rejects.toThrow(/credits\.remaining/)
    expect((await auth.passcodes.list(admin, 'acc')).find((view) => view.id === passcode.id)?.credits).toBeNull()
  })
})

describe('SPEC 5.50 exact across instances on one store', () => {
  it('three instances spend exactly N credits between them, and close() gives back what they hold', async () => {
    const store = memoryStore()
    const first = setup({ store })
    const fleet = [first, setup({ store, clock: first.clock }), setup({ store, clock: first.clock })]
    const { value, passcode } = await first.auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 50 } })
    const outcomes = await Promise.all(Array.from({ length: 120 }, (_, i) => fleet[i % 3]!.auth.authenticate({ accountId: 'acc', passcode: value })))
    expect(admitted(outcomes)).toBe(50)
    for (const { auth } of fleet) await auth.close()
    expect((await first.auth.passcodes.list(admin, 'acc')).find((view) => view.id === passcode.id)?.credits?.remaining).toBe(0)
  })

  it('an instance that dies with a lease loses it, never doubles it: at most N admitted, under-admission at most its lease', async () => {
    const store = memoryStore()
    const first = setup({ store })
    const { value, passcode } = await first.auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 40 } })
    const dying = setup({ store, clock: first.clock })
    // The dying instance ramps its lease up (1, 2, 4, …) and then stops without close().
    let dyingAdmitted = 0
    for (let i = 0; i < 6; i++) if ((await dying.auth.authenticate({ accountId: 'acc', passcode: value })).ok) dyingAdmitted++
    const survivors = [first, setup({ store, clock: first.clock })]
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => survivors[i % 2]!.auth.authenticate({ accountId: 'acc', passcode: value })),
    )
    const total = dyingAdmitted + admitted(outcomes)
    expect(total).toBeLessThanOrEqual(40)
    const view = (await first.auth.passcodes.list(admin, 'acc')).find((entry) => entry.id === passcode.id)
    for (const { auth } of survivors) await auth.close()
    // The lost lease: what the dead instance held, at most half of the balance it leased from.
    expect(40 - total).toBeLessThanOrEqual(20)
    expect(view?.credits?.remaining).toBe(0)
  })

  it('a rate limit admits at most max per window across instances', async () => {
    const store = memoryStore()
    const first = setup({ store })
    first.clock.set(Date.UTC(2026, 0, 1, 0, 0, 0))
    const fleet = [first, setup({ store, clock: first.clock }), setup({ store, clock: first.clock })]
    const { value } = await first.auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, rateLimit: { max: 30, windowSeconds: 10 } })
    const outcomes = await Promise.all(Array.from({ length: 90 }, (_, i) => fleet[i % 3]!.auth.authenticate({ accountId: 'acc', passcode: value })))
    expect(admitted(outcomes)).toBe(30)
    expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ body: RATE })
    for (const { auth } of fleet) await auth.close()
  })
})

describe('SPEC 5.50 a burst of first requests on a cold passcode', () => {
  it('is served by a lease sized for the requests waiting on it, not by a chain of leases that doubles from 1 until the waiters time out (504)', async () => {
    // Each lease takes 100 ms (a store under load), the request deadline is 1 s, and
    // 2 000 requests arrive at once. Leases that start at 1 and double need 11 in a row
    // (1.1 s): the one due after 1 s failed with the deadline of the request that started
    // it, and every request waiting on it got 504. Fake timers: the machine's speed
    // changes no figure here.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      const store = memoryStore()
      const leaseLimits = store.leaseLimits.bind(store)
      let leases = 0
      store.leaseLimits = async (request) => {
        leases++
        await new Promise((resolve) => setTimeout(resolve, 100))
        return leaseLimits(request)
      }
      const { auth } = setup({ store, timeoutMs: 1_000 })
      const { value, passcode } = await auth.passcodes.create(admin, 'acc', {
        name: 'Acme',
        expiry: 90,
        rateLimit: { max: 1_000_000, windowSeconds: 60 },
        credits: { remaining: 1_000_000 },
      })
      const burst = Promise.all(Array.from({ length: 2_000 }, () => auth.authenticate({ accountId: 'acc', passcode: value })))
      await vi.advanceTimersByTimeAsync(2_000)
      const outcomes = await burst
      const statuses: Record<number, number> = {}
      for (const outcome of outcomes) {
        const status = outcome.ok ? 200 : outcome.statusCode
        statuses[status] = (statuses[status] ?? 0) + 1
      }
      expect(statuses).toEqual({ 200: 2_000 })
      // One lease for the first request, one for all that waited on it.
      expect(leases).toBe(2)
      const closing = auth.close()
      await vi.advanceTimersByTimeAsync(1_000)
      await closing
      // Nothing spent twice, nothing lost: what was not spent went back.
      expect((await auth.passcodes.list(admin, 'acc')).find((view) => view.id === passcode.id)?.credits?.remaining).toBe(1_000_000 - 2_000)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('SPEC 5.50 a lease another request started', () => {
  it("is waited for within the waiting request's own deadline, and when it fails on its starter's deadline the waiting request leases again in its own time", async () => {
    // Leases take 900, 300 and 300 ms; the request deadline is 1 s. A and B come at 0, C at
    // 800. A's lease lands at 900 (one credit, for A); B starts the next at 900 with 100 ms
    // of its deadline left, and it fails at 1 000. C had 800 ms left: it got 504 with B
    // before; now it leases again and is admitted at 1 300. Fake timers, as above.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      const store = memoryStore()
      const leaseLimits = store.leaseLimits.bind(store)
      const delays = [900, 300, 300]
      let leases = 0
      store.leaseLimits = async (request) => {
        await new Promise((resolve) => setTimeout(resolve, delays[leases++] ?? 300))
        return leaseLimits(request)
      }
      const { auth } = setup({ store, timeoutMs: 1_000 })
      const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 100 } })
      const call = () => auth.authenticate({ accountId: 'acc', passcode: value })
      const [a, b] = [call(), call()]
      await vi.advanceTimersByTimeAsync(800)
      const c = call()
      await vi.advanceTimersByTimeAsync(1_500)
      const statuses = (await Promise.all([a, b, c])).map((outcome) => (outcome.ok ? 200 : outcome.statusCode))
      expect(statuses).toEqual([200, 504, 200])
      const closing = auth.close()
      await vi.advanceTimersByTimeAsync(1_000)
      await closing
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('SPEC 5.50 credits.low and credits.exhausted', () => {
  it('are emitted once per crossing and emailed to the admins, without the value', async () => {
    const mailer = scriptedMailer()
    const { auth, events } = setup({ mailer, recipients: everyone })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, credits: { remaining: 20 } })
    for (let i = 0; i < 25; i++) await auth.authenticate({ accountId: 'acc', passcode: value })
    const crossings = () => events.filter((event) => event.type === 'credits.low' || event.type === 'credits.exhausted')
    await expect.poll(() => mailer.delivered.length, { timeout: 5_000 }).toBe(2)
    expect(crossings().map((event) => event.type)).toEqual(['credits.low', 'credits.exhausted'])
    expect(crossings()[0]).toMatchObject({ accountId: 'acc', kind: 'account', passcodeId: passcode.id, name: 'Acme', full: 20 })
    expect(mailer.delivered.map((message) => message.subject)).toEqual([
      expect.stringMatching(/^Passcode "Acme" is low on credits: \d+ of 20 left$/),
      'Passcode "Acme" has run out of credits',
    ])
    expect(JSON.stringify([events, mailer.delivered])).not.toContain(value)
    // More refusals cross nothing again; a new setting may cross again.
    for (let i = 0; i < 5; i++) await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(crossings()).toHaveLength(2)
    await auth.close()
  })
})
