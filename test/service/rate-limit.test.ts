import { describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, generatePasscode, InvalidOptionsError, type PasscodeStore, type RateLimitStore } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryRateLimitStore, memoryStore } from '../../src/memory'
import { nodeRequestReader } from '../../src/http/node/node-request'
import { admin, setup } from '../helpers/service'

/** Whether `auth.verifyRequest` reads the caller's address (only a per-address limit needs it). */
async function readsClientAddress(auth: ReturnType<typeof createPasscodeAuth>): Promise<boolean> {
  const clientAddress = vi.fn(() => '203.0.113.250')
  const reader = {
    ...nodeRequestReader(
      (request: { headers: Record<string, string> }) => request,
      () => undefined,
    ),
    clientAddress,
  }
  await auth.verifyRequest({ headers: { 'x-service-account-id': 'probe', 'x-service-passcode': 'psc_wrong' } }, reader)
  return clientAddress.mock.calls.length > 0
}

const TOO_MANY = { status: 'fail', error: 'Too Many Requests', code: 429 }
const WINDOW = 60_000

/** A service with the limiter on, a manual clock and a store whose lookups are counted. */
async function limited(rateLimit: Parameters<typeof createPasscodeAuth>[0]['rateLimit'], timeoutMs = 2_000) {
  const store: PasscodeStore = memoryStore()
  const lookups = vi.spyOn(store, 'findCredentialByHash')
  const context = setup({ store, rateLimit, timeoutMs })
  const { value } = await context.auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 90 })
  const wrong = { accountId: 'acc', passcode: generatePasscode() }
  return { ...context, lookups, value, wrong }
}

describe('rateLimit option: brute-force limiter', () => {
  it('is off by default: a thousand failures from one address are all 400', async () => {
    const { auth } = setup()
    expect(await readsClientAddress(auth)).toBe(false)
    for (let i = 0; i < 1_000; i++) {
      const outcome = await auth.authenticate({ accountId: 'acc', passcode: 'psc_wrong', clientAddress: '192.0.2.1' })
      expect(outcome).toMatchObject({ ok: false, statusCode: 400 })
    }
  })

  it('answers 429 with Retry-After once an address reaches its limit, and before any store read', async () => {
    const { auth, clock, lookups, value, wrong, events } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 3, maxFailuresPerAccount: false })
    expect(await readsClientAddress(auth)).toBe(true)
    const from = (passcode: string, clientAddress = '192.0.2.1') => auth.authenticate({ accountId: 'acc', passcode, clientAddress })
    for (let i = 0; i < 3; i++) {
      expect(await from(wrong.passcode)).toMatchObject({ statusCode: 400 })
      clock.advance(1_000)
    }
    lookups.mockClear()
    const refused = await from(value) // valid credentials, but the address is limited
    expect(refused).toEqual({ ok: false, reason: 'rate_limited', statusCode: 429, body: TOO_MANY, headers: { 'retry-after': '57' } })
    expect(lookups).not.toHaveBeenCalled()
    expect(events.at(-1)).toMatchObject({ type: 'auth.failed', reason: 'rate_limited', statusCode: 429, accountId: 'acc' })
    // 429s are not failures: the window does not grow while the caller keeps trying.
    for (let i = 0; i < 10; i++) expect(await from(wrong.passcode)).toMatchObject({ statusCode: 429 })
    clock.advance(56_999)
    expect(await from(value)).toMatchObject({ statusCode: 429, headers: { 'retry-after': '1' } })
    clock.advance(1) // the first failure leaves the window
    expect(await from(value)).toMatchObject({ ok: true })
    // Another address was never limited.
    expect(await from(value, '192.0.2.2')).toMatchObject({ ok: true })
  })

  it('never counts a successful call', async () => {
    const { auth, value, wrong } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 2, maxFailuresPerAccount: 2 })
    const clientAddress = '192.0.2.1'
    for (let i = 0; i < 500; i++) expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress })).toMatchObject({ ok: true })
    expect(await auth.authenticate({ ...wrong, clientAddress })).toMatchObject({ statusCode: 400 })
    for (let i = 0; i < 500; i++) expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress })).toMatchObject({ ok: true })
    expect(await auth.authenticate({ ...wrong, clientAddress })).toMatchObject({ statusCode: 400 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress })).toMatchObject({ statusCode: 429 })
  })

  it('counts per address and per account independently', async () => {
    const { auth, value } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 3, maxFailuresPerAccount: 5 })
    const other = await auth.passcodes.create(admin, 'acc2', { name: 'B', expiry: 90 })
    const fail = (accountId: string, clientAddress: string) => auth.authenticate({ accountId, passcode: generatePasscode(), clientAddress })

    // Address A fails 3 times against acc: A is limited, for every account.
    for (let i = 0; i < 3; i++) expect(await fail('acc', '192.0.2.1')).toMatchObject({ statusCode: 400 })
    expect(await auth.authenticate({ accountId: 'acc2', passcode: other.value, clientAddress: '192.0.2.1' })).toMatchObject({ statusCode: 429 })
    // acc has 3 of its 5: other addresses still get in.
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.2' })).toMatchObject({ ok: true })
    // Two more failures from two fresh addresses: now failing attempts on acc are refused from everywhere…
    expect(await fail('acc', '192.0.2.3')).toMatchObject({ statusCode: 400 })
    expect(await fail('acc', '192.0.2.4')).toMatchObject({ statusCode: 400 })
    expect(await fail('acc', '192.0.2.5')).toMatchObject({ statusCode: 429 })
    // …but valid credentials from an address that is not limited still get in (SPEC 5.21)…
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.5' })).toMatchObject({ ok: true })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: true })
    // …and acc2 is not limited, from any address that is not limited itself.
    expect(await auth.authenticate({ accountId: 'acc2', passcode: other.value, clientAddress: '192.0.2.5' })).toMatchObject({ ok: true })
  })

  it('SPEC 5.21 never refuses valid credentials because others failed against the account: an attacker and a partner side by side', async () => {
    const { auth, clock, value, lookups } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 50, maxFailuresPerAccount: 50 })
    const partner = { accountId: 'acc', passcode: value, clientAddress: '198.51.100.7' }
    let attackerAnswers = { 400: 0, 429: 0 }
    // 400 failed attempts from 40 addresses (10 each, none of them limited), one partner call after each.
    for (let i = 0; i < 400; i++) {
      const attack = await auth.authenticate({ accountId: 'acc', passcode: generatePasscode(), clientAddress: `203.0.113.${i % 40}` })
      expect(attack.ok).toBe(false)
      if (!attack.ok) attackerAnswers = { ...attackerAnswers, [attack.statusCode]: attackerAnswers[attack.statusCode as 400 | 429] + 1 }
      expect(await auth.authenticate(partner)).toMatchObject({ ok: true })
      clock.advance(10)
    }
    // The account's count refuses the attacker's failing attempts once it is reached, with a Retry-After.
    expect(attackerAnswers).toEqual({ 400: 50, 429: 350 })
    const refused = await auth.authenticate({ accountId: 'acc', passcode: generatePasscode(), clientAddress: '203.0.113.99' })
    // Refused attempts still count: the 50th newest failure, at 3 500 ms, leaves the window 59.5 s from now (4 000 ms).
    expect(refused).toMatchObject({ statusCode: 429, headers: { 'retry-after': '60' } })
    // A partner's valid credentials still pass from a new address, through the store (no cache in this service).
    lookups.mockClear()
    expect(await auth.authenticate({ ...partner, clientAddress: '198.51.100.8' })).toMatchObject({ ok: true })
    // An address that floods is shed entirely, valid credentials included, before any store read.
    for (let i = 0; i < 50; i++) await auth.authenticate({ accountId: 'other', passcode: generatePasscode(), clientAddress: '192.0.2.66' })
    lookups.mockClear()
    expect(await auth.authenticate({ ...partner, clientAddress: '192.0.2.66' })).toMatchObject({ statusCode: 429 })
    expect(lookups).not.toHaveBeenCalled()
  })

  it('limits an unknown account ID exactly like an existing one', async () => {
    const { auth } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: false, maxFailuresPerAccount: 2 })
    const answers = async (accountId: string) => {
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) {
        const outcome = await auth.authenticate({ accountId, passcode: generatePasscode(), clientAddress: `192.0.2.${i}` })
        statuses.push(outcome.ok ? 200 : outcome.statusCode)
      }
      return statuses
    }
    expect(await answers('acc')).toEqual([400, 400, 429, 429])
    expect(await answers('acc_never_seen')).toEqual([400, 400, 429, 429])
  })

  it('counts 400 and 401 refusals, not 503 or 504', async () => {
    const store = memoryStore()
    let mode: 'normal' | 'throws' | 'hangs' = 'normal'
    const original = store.findCredentialByHash.bind(store)
    store.findCredentialByHash = (hash) =>
      mode === 'throws' ? Promise.reject(new Error('down')) : mode === 'hangs' ? new Promise(() => {}) : original(hash)
    const { auth, clock } = setup({ store, timeoutMs: 150, rateLimit: { windowMs: WINDOW, maxFailuresPerAddress: 2, maxFailuresPerAccount: false } })
    const short = await auth.passcodes.create(admin, 'acc', { name: 'Short', expiry: 1 })
    const fresh = await auth.passcodes.create(admin, 'acc', { name: 'Fresh', expiry: 90 })
    clock.advance(DAY_MS)
    const clientAddress = '192.0.2.9'
    mode = 'throws'
    for (let i = 0; i < 5; i++)
      expect(await auth.authenticate({ ...{ accountId: 'acc', passcode: generatePasscode() }, clientAddress })).toMatchObject({ statusCode: 503 })
    mode = 'hangs'
    for (let i = 0; i < 3; i++)
      expect(await auth.authenticate({ accountId: 'acc', passcode: generatePasscode(), clientAddress })).toMatchObject({ statusCode: 504 })
    mode = 'normal'
    expect(await auth.authenticate({ accountId: 'acc', passcode: fresh.value, clientAddress })).toMatchObject({ ok: true })
    expect(await auth.authenticate({ accountId: 'acc', passcode: short.value, clientAddress })).toMatchObject({ statusCode: 401 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: 'not even well formed', clientAddress })).toMatchObject({ statusCode: 400 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: fresh.value, clientAddress })).toMatchObject({ statusCode: 429 })
  })

  it('does not count partner refusals on connect: the caller is authenticated', async () => {
    const { auth, value } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 1, maxFailuresPerAccount: 1 })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    for (let i = 0; i < 5; i++) {
      expect(await auth.connect({ headers, partner: 'globex', clientAddress: '192.0.2.1' })).toMatchObject({ statusCode: 403 })
      expect(await auth.connect({ headers, partner: '', clientAddress: '192.0.2.1' })).toMatchObject({ statusCode: 400, reason: 'missing_partner' })
    }
    expect(await auth.connect({ headers, partner: 'acme', clientAddress: '192.0.2.1' })).toMatchObject({ statusCode: 200 })
    const refused = await auth.connect({ headers: {}, partner: 'acme', clientAddress: '192.0.2.1' })
    expect(refused).toMatchObject({ statusCode: 400 })
    expect(await auth.connect({ headers, partner: 'acme', clientAddress: '192.0.2.1' })).toMatchObject({
      statusCode: 429,
      headers: { 'retry-after': '60' },
    })
  })

  it('counts an IPv6 /64 as one address', async () => {
    const { auth, value } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 2, maxFailuresPerAccount: false })
    await auth.authenticate({ accountId: 'acc', passcode: 'x', clientAddress: '2001:db8:1:2::1' })
    await auth.authenticate({ accountId: 'acc', passcode: 'x', clientAddress: '2001:db8:1:2::2' })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '2001:db8:1:2:ffff::9' })).toMatchObject({ statusCode: 429 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '2001:db8:1:3::1' })).toMatchObject({ ok: true })
  })

  it('lets requests through when its store throws or hangs, and then counts nothing', async () => {
    const failing: RateLimitStore = {
      retryAfterMs: () => {
        throw new Error('limiter store down')
      },
      recordFailure: () => Promise.reject(new Error('limiter store down')),
    }
    const hanging: RateLimitStore = { retryAfterMs: () => new Promise(() => {}), recordFailure: () => new Promise(() => {}) }
    for (const store of [failing, hanging]) {
      const { auth, value } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 1, store }, 50)
      for (let i = 0; i < 3; i++) {
        expect(await auth.authenticate({ accountId: 'acc', passcode: generatePasscode(), clientAddress: '192.0.2.1' })).toMatchObject({
          statusCode: 400,
        })
      }
      expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.1' })).toMatchObject({ ok: true })
    }
  })

  it('uses a given store, synchronous or asynchronous, with the namespaced keys', async () => {
    const memory = memoryRateLimitStore()
    const calls: string[] = []
    const store: RateLimitStore = {
      retryAfterMs: async (key, limit, windowMs, now) => (calls.push(`check ${key}`), memory.retryAfterMs(key, limit, windowMs, now)),
      recordFailure: async (key, limit, windowMs, now) => {
        calls.push(`record ${key}`)
        memory.recordFailure(key, limit, windowMs, now)
      },
    }
    const { auth, value } = await limited({ windowMs: WINDOW, maxFailuresPerAddress: 1, maxFailuresPerAccount: 5, store })
    await auth.authenticate({ accountId: 'acc', passcode: 'bad', clientAddress: '::ffff:192.0.2.1' })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.1' })).toMatchObject({ statusCode: 429 })
    // The address before the credentials; the account only once they failed.
    expect(calls.slice(0, 4)).toEqual(['check address:192.0.2.1', 'check account:acc', 'record address:192.0.2.1', 'record account:acc'])
    calls.length = 0
    expect(await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.2' })).toMatchObject({ ok: true })
    expect(calls).toEqual(['check address:192.0.2.2'])
  })

  it('validates its options at construction', () => {
    const create = (rateLimit: unknown) => () => createPasscodeAuth({ store: memoryStore(), rateLimit: rateLimit as false })
    expect(create({})).not.toThrow()
    expect(create(false)).not.toThrow()
    expect(create({ windowMs: 999 })).toThrow(/rateLimit\.windowMs/)
    expect(create({ maxFailuresPerAddress: 0 })).toThrow(/rateLimit\.maxFailuresPerAddress/)
    expect(create({ maxFailuresPerAccount: 1.5 })).toThrow(/rateLimit\.maxFailuresPerAccount/)
    expect(create({ maxFailuresPerAddress: false, maxFailuresPerAccount: false })).toThrow(/at least one/)
    expect(create({ store: memoryRateLimitStore(), maxTrackedKeys: 10 })).toThrow(/rateLimit\.maxTrackedKeys/)
    expect(create({ store: {} })).toThrow(/rateLimit\.store/)
    expect(create({ windowMs: 60_000, typo: 1 })).toThrow(InvalidOptionsError)
    expect(create(true)).toThrow(InvalidOptionsError)
  })

  it('reads the address only when a per-address limit is on', async () => {
    expect(await readsClientAddress(createPasscodeAuth({ store: memoryStore(), rateLimit: {} }))).toBe(true)
    expect(await readsClientAddress(createPasscodeAuth({ store: memoryStore(), rateLimit: { maxFailuresPerAddress: false } }))).toBe(false)
  })

  it('adds no step when off, so the hot path is untouched: no address read, no limiter store call', async () => {
    const store = { retryAfterMs: vi.fn(() => 0), recordFailure: vi.fn() }
    const { createLimiter } = await import('../../src/service/limiter/rate-limit')
    expect(
      createLimiter({ timeoutMs: 1_000, emit: undefined }, { windowMs: 60_000, maxFailuresPerAddress: false, maxFailuresPerAccount: 5, store }).admit(
        '192.0.2.1',
        0,
      ),
    ).toBe(0)
    expect(store.retryAfterMs).not.toHaveBeenCalled()
    expect(await readsClientAddress(createPasscodeAuth({ store: memoryStore(), rateLimit: false }))).toBe(false)
  })
})

describe('429 through PasscodeRefusedError', () => {
  it('carries Retry-After in its headers, for hosts that handle refusals themselves', async () => {
    const { PasscodeRefusedError } = await import('../../src/http/refusal-error')
    const { auth } = setup({ rateLimit: { windowMs: WINDOW, maxFailuresPerAddress: 1, maxFailuresPerAccount: false } })
    await auth.authenticate({ accountId: 'acc', passcode: 'bad', clientAddress: '192.0.2.1' })
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: 'bad', clientAddress: '192.0.2.1' })
    if (outcome.ok) throw new Error('expected a refusal')
    const error = new PasscodeRefusedError(outcome)
    expect(error.statusCode).toBe(429)
    expect(error.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '60' })
    expect(JSON.stringify(error)).toBe('{"status":"fail","error":"Too Many Requests","code":429}')
  })
})
