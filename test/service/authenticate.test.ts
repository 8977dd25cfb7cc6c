import { describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, generatePasscode, type PasscodeStore } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, INVALID_CREDENTIALS, setup } from '../helpers/service'

const user = { userId: 'u1', role: 'member' } as const

describe('SPEC 5.1 expired passcode and identical 400 bodies', () => {
  it('answers 401 "Passcode expired" only for an expired credential of that very account', async () => {
    const { auth, clock } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 1 })
    clock.advance(DAY_MS)
    const own = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(own).toMatchObject({ ok: false, statusCode: 401, body: { status: 'fail', error: 'Passcode expired', code: 401 } })
    const other = await auth.authenticate({ accountId: 'other', passcode: value })
    expect(other).toMatchObject({ ok: false, statusCode: 400, body: INVALID_CREDENTIALS })
  })

  it('answers the same 400 bytes for unknown, wrong, other account, deleted, revoked and malformed', async () => {
    const { auth } = setup()
    const a = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    const deleted = await auth.passcodes.create(admin, 'acc', { name: 'D', expiry: 30 })
    await auth.passcodes.delete(admin, 'acc', deleted.passcode.id)
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const revoked = await auth.userPasscodes.reveal(user, 'acc')
    await auth.userPasscodes.revoke(admin, 'acc', 'u1')
    const other = await auth.passcodes.create(admin, 'acc2', { name: 'A', expiry: 30 })

    const cases = {
      unknownAccount: { accountId: 'nobody', passcode: a.value },
      wrongPasscode: { accountId: 'acc', passcode: generatePasscode() },
      otherAccountsPasscode: { accountId: 'acc', passcode: other.value },
      deleted: { accountId: 'acc', passcode: deleted.value },
      revoked: { accountId: 'acc', passcode: revoked.value },
      badChecksum: { accountId: 'acc', passcode: `${a.value.slice(0, -1)}${a.value.endsWith('x') ? 'y' : 'x'}` },
      malformed: { accountId: 'acc', passcode: 'has space' },
      empty: { accountId: '', passcode: '' },
    }
    const bodies = new Set<string>()
    for (const input of Object.values(cases)) {
      const outcome = await auth.authenticate(input)
      expect(outcome.ok).toBe(false)
      if (!outcome.ok) {
        expect(outcome.statusCode).toBe(400)
        bodies.add(JSON.stringify(outcome.body))
      }
    }
    expect([...bodies]).toEqual([JSON.stringify(INVALID_CREDENTIALS)])
  })
})

describe('SPEC 5.5 checksum failures never touch storage', () => {
  it('rejects a value whose checksum fails without a store call', async () => {
    const store = memoryStore()
    const spy = vi.spyOn(store, 'findCredentialByHash')
    const { auth } = setup({ store })
    const value = generatePasscode()
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}` })
    expect(outcome).toMatchObject({ ok: false, reason: 'checksum_mismatch', statusCode: 400 })
    expect(spy).not.toHaveBeenCalled()
  })
})

describe('no account-existence oracle', () => {
  it('does the same work (one hash, one lookup by hash) for unknown and known accounts', async () => {
    const store = memoryStore()
    // The refusal cache off: the second call would be answered from it, for either account.
    const { auth } = setup({ store, cache: { refusals: false } })
    await auth.passcodes.create(admin, 'known', { name: 'A', expiry: 30 })
    const lookups = vi.spyOn(store, 'findCredentialByHash')
    const passcode = generatePasscode()
    const unknown = await auth.authenticate({ accountId: 'unknown', passcode })
    const known = await auth.authenticate({ accountId: 'known', passcode })
    expect(lookups).toHaveBeenCalledTimes(2)
    const [first, second] = lookups.mock.calls.map((call) => call[0])
    expect(first).toBe(second) // the lookup key does not depend on the account
    expect(JSON.stringify(unknown)).toBe(JSON.stringify(known))
  })
})

describe('SPEC 5.11 accepted passcodes', () => {
  it('accepts account passcodes by default, user passcodes only when set', async () => {
    const { auth } = setup()
    const account = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 30 } })
    const own = await auth.userPasscodes.reveal(user, 'acc')
    const check = async () => [
      (await auth.authenticate({ accountId: 'acc', passcode: account.value })).ok,
      (await auth.authenticate({ accountId: 'acc', passcode: own.value })).ok,
    ]
    expect(await check()).toEqual([true, false])
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'user')
    expect(await check()).toEqual([false, true])
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    expect(await check()).toEqual([true, true])
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'account')
    expect(await check()).toEqual([true, false])
  })
})

describe('SPEC 5.15 server errors', () => {
  const failing = (behaviour: 'throw' | 'hang'): PasscodeStore => ({
    ...memoryStore(),
    findCredentialByHash: () => (behaviour === 'throw' ? Promise.reject(new Error('connection refused at 10.0.0.5:5432')) : new Promise(() => {})),
  })

  it('answers 503 when storage throws, without leaking internals', async () => {
    const { auth } = setup({ store: failing('throw') })
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: generatePasscode() })
    expect(outcome).toEqual({
      ok: false,
      reason: 'storage_error',
      statusCode: 503,
      body: { status: 'fail', error: 'Server Error', code: 503 },
    })
  })

  it('answers 504 when storage is slower than the deadline', async () => {
    const { auth } = setup({ store: failing('hang'), timeoutMs: 50 })
    const started = Date.now()
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: generatePasscode() })
    expect(outcome).toMatchObject({ statusCode: 504, body: { status: 'fail', error: 'Server Error', code: 504 } })
    expect(Date.now() - started).toBeGreaterThanOrEqual(45)
  })

  it('uses a default deadline of 2000 ms', async () => {
    vi.useFakeTimers()
    try {
      const auth = createPasscodeAuth({ store: failing('hang') })
      const pending = auth.authenticate({ accountId: 'acc', passcode: generatePasscode() })
      await vi.advanceTimersByTimeAsync(1999)
      let settled = false
      void pending.then(() => {
        settled = true
      })
      await vi.advanceTimersByTimeAsync(0)
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(await pending).toMatchObject({ statusCode: 504 })
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('SPEC 5.17 principal', () => {
  it('is { accountId, kind: account, passcodeId, passcodeName } or { accountId, kind: user, userId }', async () => {
    const { auth } = setup()
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 31 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toEqual({
      ok: true,
      principal: { accountId: 'acc', kind: 'account', passcodeId: passcode.id, passcodeName: 'Acme' },
    })
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const own = await auth.userPasscodes.reveal(user, 'acc')
    expect(await auth.authenticate({ accountId: 'acc', passcode: own.value })).toEqual({
      ok: true,
      principal: { accountId: 'acc', kind: 'user', userId: 'u1' },
    })
  })
})

describe('verification cache', () => {
  it('serves repeated verifications without storage, and never an expired passcode', async () => {
    const store = memoryStore()
    const { auth, clock } = setup({ store, cache: { ttlMs: DAY_MS, maxEntries: 10 } })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 1 })
    const lookups = vi.spyOn(store, 'findCredentialByHash')
    clock.advance(DAY_MS / 2) // the TTL (1 day) now reaches past the expiry
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect(lookups).toHaveBeenCalledTimes(1)
    clock.advance(DAY_MS / 2)
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ statusCode: 401 })
  })

  it('does not serve a cached passcode to another account', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect(await auth.authenticate({ accountId: 'acc2', passcode: value })).toMatchObject({ statusCode: 400 })
  })

  it('expires entries after ttlMs and stays within maxEntries', async () => {
    const store = memoryStore()
    const { auth, clock } = setup({ store, cache: { ttlMs: 1000, maxEntries: 2 } })
    const values = []
    for (const name of ['a', 'b', 'c']) values.push((await auth.passcodes.create(admin, 'acc', { name, expiry: 30 })).value)
    const lookups = vi.spyOn(store, 'findCredentialByHash')
    for (const value of values) await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.authenticate({ accountId: 'acc', passcode: values[0]! }) // evicted by c: a lookup
    expect(lookups).toHaveBeenCalledTimes(4)
    await auth.authenticate({ accountId: 'acc', passcode: values[0]! }) // cached again
    expect(lookups).toHaveBeenCalledTimes(4)
    clock.advance(1000)
    await auth.authenticate({ accountId: 'acc', passcode: values[0]! })
    expect(lookups).toHaveBeenCalledTimes(5)
  })

  it('is invalidated at once on another instance sharing the store (delete, reset, revoke, settings)', async () => {
    const store = memoryStore()
    const one = setup({ store })
    const two = setup({ store })
    const { passcode, value } = await one.auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    await one.auth.passcodes.delete(admin, 'acc', passcode.id)
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(false)

    await one.auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await one.auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const first = await one.auth.userPasscodes.reveal(user, 'acc')
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: first.value })).ok).toBe(true)
    await one.auth.userPasscodes.reset(admin, 'acc', 'u1')
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: first.value })).ok).toBe(false)
    const second = await one.auth.userPasscodes.reveal(user, 'acc')
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: second.value })).ok).toBe(true)
    await one.auth.accounts.setAcceptedPasscodes(admin, 'acc', 'account')
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: second.value })).ok).toBe(false)
    await one.auth.accounts.setAcceptedPasscodes(admin, 'acc', 'user')
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: second.value })).ok).toBe(true)
    await one.auth.userPasscodes.revoke(admin, 'acc', 'u1')
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: second.value })).ok).toBe(false)
  })

  it('does not cache a read that raced with an invalidation', async () => {
    const base = memoryStore()
    let release: (() => void) | undefined
    const store: PasscodeStore = {
      ...base,
      findCredentialByHash: async (hash) => {
        const match = await base.findCredentialByHash(hash)
        await new Promise<void>((resolve) => {
          release = resolve
        })
        return match
      },
    }
    const { auth } = setup({ store })
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    const pending = auth.authenticate({ accountId: 'acc', passcode: value })
    await vi.waitFor(() => expect(release).toBeDefined())
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    release!()
    expect((await pending).ok).toBe(true) // read before the delete
    release = undefined
    const after = auth.authenticate({ accountId: 'acc', passcode: value })
    await vi.waitFor(() => expect(release).toBeDefined())
    release!()
    expect((await after).ok).toBe(false) // not served from a stale cache entry
  })

  it('can be turned off', async () => {
    const store = memoryStore()
    const { auth } = setup({ store, cache: false })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    const lookups = vi.spyOn(store, 'findCredentialByHash')
    await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(lookups).toHaveBeenCalledTimes(2)
  })
})

describe('pepper', () => {
  it('keys the stored hash: a service with another pepper does not accept the passcode', async () => {
    const store = memoryStore()
    const one = setup({ store, pepper: 'pepper-number-one-0123' })
    const two = setup({ store, pepper: 'pepper-number-two-0123' })
    const { value } = await one.auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    expect((await one.auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(false)
  })
})
