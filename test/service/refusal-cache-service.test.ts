import { describe, expect, it } from 'vitest'
import { generatePasscode, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { admin, setup } from '../helpers/service'

const DAY = 86_400_000

/** A memory store that counts verification reads. */
function countingStore(): { store: PasscodeStore; reads: () => number } {
  const inner = memoryStore()
  let reads = 0
  const store: PasscodeStore = Object.create(inner) as PasscodeStore
  store.findCredentialByHash = (hash) => {
    reads++
    return inner.findCredentialByHash(hash)
  }
  return { store, reads: () => reads }
}

function service(options: Parameters<typeof setup>[0] = {}) {
  const counted = countingStore()
  const s = setup({ store: counted.store, allowReactivation: true, ...options })
  return { ...s, reads: counted.reads }
}

const status = (outcome: { ok: boolean; statusCode?: number }) => (outcome.ok ? 200 : outcome.statusCode)

describe('the refusal cache, through the service', () => {
  it('answers a repeated refusal without a store read: unknown, another account’s, expired, revoked, not accepted', async () => {
    const { auth, clock, reads } = service()
    const { value: expiring } = await auth.passcodes.create(admin, 'acc_1', { name: 'Short', expiry: 1 })
    const { value: valid } = await auth.passcodes.create(admin, 'acc_1', { name: 'Valid', expiry: 30 })
    clock.advance(DAY)
    const cases = [
      { accountId: 'acc_1', passcode: generatePasscode(), expected: 400 },
      { accountId: 'acc_2', passcode: valid, expected: 400 },
      { accountId: 'acc_1', passcode: expiring, expected: 401 },
    ]
    for (const c of cases) {
      const before = reads()
      for (let i = 0; i < 5; i++) expect(status(await auth.authenticate(c))).toBe(c.expected)
      expect(reads() - before).toBe(1)
    }
    // The right account still takes the full path for a valid passcode refused only to another account.
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: valid }))).toBe(200)
  })

  it('events and bodies are the same from the cache as from the store', async () => {
    const { auth, events } = service()
    const wrong = { accountId: 'acc_1', passcode: generatePasscode() }
    const first = await auth.authenticate(wrong)
    const second = await auth.authenticate(wrong)
    expect(second).toEqual(first)
    const failed = events.filter((event) => event.type === 'auth.failed')
    expect(failed).toHaveLength(2)
    expect(failed[1]).toMatchObject({ ...failed[0], at: expect.anything() })
  })

  it('a reactivating edit turns a cached 401 into a success at once', async () => {
    const { auth, clock } = service()
    const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 1 })
    clock.advance(DAY)
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(401)
    await auth.passcodes.update(admin, 'acc_1', passcode.id, { expiry: 30 })
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(200)
  })

  it('deleting an expired passcode turns its cached 401 into the 400 at once (SPEC §5.1)', async () => {
    const { auth, clock } = service()
    const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 1 })
    clock.advance(DAY)
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(401)
    await auth.passcodes.delete(admin, 'acc_1', passcode.id)
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(400)
  })

  it("the account's accepted-passcodes setting turns a cached refusal into a success, and back", async () => {
    const { auth } = service()
    await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'finite', days: 30 } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_1')
    const credentials = { accountId: 'acc_1', passcode: value }
    expect(status(await auth.authenticate(credentials))).toBe(400) // the default accepts account passcodes only
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
    expect(status(await auth.authenticate(credentials))).toBe(200)
    const { value: accountValue } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'user')
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: accountValue }))).toBe(400)
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'account')
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: accountValue }))).toBe(200)
  })

  it('a grant over an expired user passcode, a reset and a revoke each change a cached 401 into the 400 at once', async () => {
    const { auth, clock } = service()
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
    const user = (id: string) => ({ userId: id, role: 'member' }) as const
    const expiredValue = async (userId: string) => {
      await auth.userPasscodes.grant(admin, 'acc_1', userId, { validity: { type: 'finite', days: 1 } })
      return (await auth.userPasscodes.reveal(user(userId), 'acc_1')).value
    }
    const grantUser = await expiredValue('u_grant')
    const resetUser = await expiredValue('u_reset')
    const revokeUser = await expiredValue('u_revoke')
    clock.advance(DAY)
    for (const value of [grantUser, resetUser, revokeUser]) expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(401)
    await auth.userPasscodes.grant(admin, 'acc_1', 'u_grant', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.reset(admin, 'acc_1', 'u_reset')
    await auth.userPasscodes.revoke(admin, 'acc_1', 'u_revoke')
    for (const value of [grantUser, resetUser, revokeUser]) expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(400)
  })

  it('forgets a refusal after cache.refusals.ttlMs, and can be turned off', async () => {
    const { auth, clock, reads } = service({ cache: { refusals: { ttlMs: 1_000 } } })
    const wrong = { accountId: 'acc_1', passcode: generatePasscode() }
    await auth.authenticate(wrong)
    await auth.authenticate(wrong)
    expect(reads()).toBe(1)
    clock.advance(1_000)
    await auth.authenticate(wrong)
    expect(reads()).toBe(2)

    const off = service({ cache: { refusals: false } })
    await off.auth.authenticate(wrong)
    await off.auth.authenticate(wrong)
    expect(off.reads()).toBe(2)
  })

  it('a flood of distinct well-formed values stays within its bound and never evicts a valid credential', async () => {
    const { auth, reads } = service({ cache: { maxEntries: 100, refusals: { maxEntries: 50 } } })
    const valid = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => ({
        accountId: 'acc_1',
        passcode: (await auth.passcodes.create(admin, 'acc_1', { name: `P${i}`, expiry: 30 })).value,
      })),
    )
    for (const credentials of valid) expect(status(await auth.authenticate(credentials))).toBe(200)
    for (let i = 0; i < 2_000; i++) await auth.authenticate({ accountId: 'acc_1', passcode: generatePasscode() })
    const before = reads()
    for (const credentials of valid) expect(status(await auth.authenticate(credentials))).toBe(200)
    expect(reads()).toBe(before) // all 100 still in the verification cache
  })
})

describe('shared reads: concurrent misses of one passcode', () => {
  it('200 concurrent requests for one cold credential make one store read', async () => {
    const { auth, reads } = service()
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => auth.authenticate({ accountId: 'acc_1', passcode: value })))
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true)
    expect(reads()).toBe(1)
  })

  it('each caller checks the shared read against its own account', async () => {
    const { auth, reads } = service({ cache: false })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
    const outcomes = await Promise.all(['acc_1', 'acc_2', 'acc_1'].map((accountId) => auth.authenticate({ accountId, passcode: value })))
    expect(outcomes.map(status)).toEqual([200, 400, 200])
    expect(reads()).toBe(1)
  })

  it('a caller that comes after a change never joins a read that began before it', async () => {
    const inner = memoryStore()
    let release: () => void = () => {}
    let reads = 0
    const store: PasscodeStore = Object.create(inner) as PasscodeStore
    store.findCredentialByHash = async (hash) => {
      reads++
      const match = await inner.findCredentialByHash(hash) // read before the delete
      if (reads === 1) await new Promise<void>((resolve) => (release = resolve))
      return match
    }
    const { auth } = setup({ store })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
    const early = auth.authenticate({ accountId: 'acc_1', passcode: value })
    await new Promise((resolve) => setTimeout(resolve, 5))
    await auth.passcodes.delete(admin, 'acc_1', passcode.id)
    const late = auth.authenticate({ accountId: 'acc_1', passcode: value })
    release()
    expect(status(await early)).toBe(200) // it began before the delete
    expect(status(await late)).toBe(400)
    expect(reads).toBe(2)
    // And the early read, overtaken by the delete, was not cached.
    expect(status(await auth.authenticate({ accountId: 'acc_1', passcode: value }))).toBe(400)
  })

  it('a failing read fails every caller that shares it with the 503, and the next one reads again', async () => {
    const inner = memoryStore()
    let reads = 0
    const store: PasscodeStore = Object.create(inner) as PasscodeStore
    store.findCredentialByHash = async () => {
      reads++
      throw new Error('connection refused')
    }
    const { auth } = setup({ store })
    const credentials = { accountId: 'acc_1', passcode: generatePasscode() }
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => auth.authenticate(credentials)))
    expect(outcomes.map(status)).toEqual(Array(10).fill(503))
    expect(reads).toBe(1)
    await auth.authenticate(credentials)
    expect(reads).toBe(2) // an error is never remembered
  })

  it('a read that never settles answers its callers with the 504, and the next caller reads again (SPEC 5.15)', async () => {
    const inner = memoryStore()
    let reads = 0
    const store: PasscodeStore = Object.create(inner) as PasscodeStore
    store.findCredentialByHash = (hash) => {
      reads++
      return reads === 1 ? new Promise(() => {}) : inner.findCredentialByHash(hash) // the first one hangs for good
    }
    const { auth } = setup({ store, timeoutMs: 150 })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
    const credentials = { accountId: 'acc_1', passcode: value }
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => auth.authenticate(credentials)))
    expect(outcomes.map(status)).toEqual(Array(5).fill(504))
    expect(reads).toBe(1) // the five shared the one read
    expect(status(await auth.authenticate(credentials))).toBe(200)
    expect(reads).toBe(2)
  })
})

describe('the caches never change an answer: a cached service against a cache-off one, after every operation', () => {
  it('delete, edits (expiry, reactivation, binding), rotations, settings, grant, reset, revoke and time', async () => {
    const store = memoryStore()
    const cached = setup({ store, allowReactivation: true, partners: ['acme', 'initech'] })
    const clock = cached.clock
    // The reference reads the store on every call, on the same clock.
    const reference = setup({ store, allowReactivation: true, partners: ['acme', 'initech'], cache: false, clock })
    const { auth } = cached
    const values: string[] = [generatePasscode()]
    const issue = async (accountId: string, name: string, expiry: number) => {
      const issued = await auth.passcodes.create(admin, accountId, { name, expiry })
      values.push(issued.value)
      return issued.passcode.id
    }
    const user = (userId: string) => ({ userId, role: 'member' }) as const
    const reveal = async (accountId: string, userId: string) => values.push((await auth.userPasscodes.reveal(user(userId), accountId)).value)
    const compare = async (step: string) => {
      for (let round = 0; round < 2; round++) {
        for (const value of values) {
          for (const accountId of ['acc_1', 'acc_2']) {
            const input = { accountId, passcode: value }
            const [got, expected] = [await auth.authenticate(input), await reference.auth.authenticate(input)]
            expect(status(got), `${step}: ${accountId}, value #${values.indexOf(value)}`).toBe(status(expected))
          }
        }
      }
    }
    const short = await issue('acc_1', 'Short', 1)
    const rotating = await issue('acc_1', 'Rotating', 30)
    const binding = await issue('acc_2', 'Bound', 30)
    await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'finite', days: 1 } })
    await reveal('acc_1', 'u_1')
    await auth.userPasscodes.grant(admin, 'acc_2', 'u_2', { validity: { type: 'finite', days: 30 } })
    await reveal('acc_2', 'u_2')
    await compare('start')
    clock.advance(DAY) // Short and u_1 expire
    await compare('a day later')
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
    await compare('acc_1 accepts both')
    await auth.passcodes.update(admin, 'acc_1', short, { expiry: 10 })
    await compare('reactivated')
    values.push((await auth.passcodes.rotate(admin, 'acc_1', rotating, { overlapMinutes: 5 })).value)
    await compare('rotated with an overlap')
    clock.advance(5 * 60_000)
    await compare('overlap over')
    values.push((await auth.passcodes.rotate(admin, 'acc_1', rotating, { overlapMinutes: 0 })).value)
    await compare('rotated without an overlap')
    await auth.passcodes.update(admin, 'acc_2', binding, { partners: ['acme'] })
    await compare('bound')
    await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'finite', days: 30 } })
    await reveal('acc_1', 'u_1')
    await compare('granted over an expired user passcode')
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_2', 'both')
    await compare('acc_2 accepts both')
    await auth.userPasscodes.reset(admin, 'acc_2', 'u_2')
    await reveal('acc_2', 'u_2')
    await compare('reset')
    await auth.userPasscodes.revoke(admin, 'acc_2', 'u_2')
    await compare('revoked')
    clock.advance(10 * DAY)
    await compare('ten days later')
    await auth.passcodes.delete(admin, 'acc_1', short)
    await compare('expired passcode deleted')
    await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'user')
    await compare('acc_1 accepts user passcodes only')
  })
})
