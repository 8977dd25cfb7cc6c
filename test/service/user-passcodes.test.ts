import { compactDecrypt, decodeProtectedHeader } from 'jose'
import { describe, expect, it } from 'vitest'
import { AlreadyGrantedError, ConfigurationError, ForbiddenError, InvalidInputError, InvalidOptionsError, NotFoundError } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, setup, TEST_KEY } from '../helpers/service'
import { audited } from '../conformance/store/fixtures'

const user = { userId: 'u1', role: 'member' } as const

async function granted(validity: { type: 'finite'; days: number } | { type: 'infinite' } = { type: 'infinite' }) {
  const context = setup()
  await context.auth.accounts.setAcceptedPasscodes(admin, 'acc', 'user')
  const view = await context.auth.userPasscodes.grant(admin, 'acc', 'u1', { validity })
  return { ...context, view }
}

describe('SPEC 3 user passcodes', () => {
  it('requires a validity: finite 1 to 365 days, or infinite', async () => {
    const { auth } = setup()
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', {} as never)).rejects.toMatchObject({ field: 'validity' })
    for (const days of [0, 366, 1.5]) {
      await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days } })).rejects.toMatchObject({
        field: 'validity.days',
      })
    }
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'forever' } as never })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 365 } })).resolves.toMatchObject({
      status: 'active',
    })
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u2', { validity: { type: 'finite', days: 1 } })).resolves.toMatchObject({
      status: 'expiring_soon',
    })
  })

  it('makes infinite valid up to 10 years', async () => {
    const { view, clock } = await granted()
    expect(view.expiresAt.getTime()).toBe(Date.UTC(2036, 0, 1))
    expect(view.grantedAt.getTime()).toBe(clock.ms)
  })

  it('is unique to one user; only an admin grants, resets or revokes it', async () => {
    const { auth } = await granted()
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })).rejects.toBeInstanceOf(AlreadyGrantedError)
    const writer = { userId: 'w', role: 'member', canWriteUserSettings: true } as const
    await expect(auth.userPasscodes.grant(writer, 'acc', 'u2', { validity: { type: 'infinite' } })).rejects.toBeInstanceOf(ForbiddenError)
    await expect(auth.userPasscodes.reset(writer, 'acc', 'u1')).rejects.toBeInstanceOf(ForbiddenError)
    await expect(auth.userPasscodes.revoke(user, 'acc', 'u1')).rejects.toBeInstanceOf(ForbiddenError)
  })

  it('lets the user see their own passcode after it is granted', async () => {
    const { auth } = await granted()
    const own = await auth.userPasscodes.reveal(user, 'acc')
    expect((await auth.authenticate({ accountId: 'acc', passcode: own.value })).ok).toBe(true)
    expect((await auth.userPasscodes.reveal(user, 'acc')).value).toBe(own.value)
  })

  it('reset generates a fresh value and the old one stops working at once', async () => {
    const { auth } = await granted()
    const before = await auth.userPasscodes.reveal(user, 'acc')
    expect((await auth.authenticate({ accountId: 'acc', passcode: before.value })).ok).toBe(true)
    await auth.userPasscodes.reset(admin, 'acc', 'u1')
    const after = await auth.userPasscodes.reveal(user, 'acc')
    expect(after.value).not.toBe(before.value)
    expect(await auth.authenticate({ accountId: 'acc', passcode: before.value })).toMatchObject({ statusCode: 400 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: after.value })).ok).toBe(true)
  })

  it('revoke invalidates it: the user can no longer call the API with it', async () => {
    const { auth } = await granted()
    const own = await auth.userPasscodes.reveal(user, 'acc')
    expect((await auth.authenticate({ accountId: 'acc', passcode: own.value })).ok).toBe(true)
    expect(await auth.userPasscodes.revoke(admin, 'acc', 'u1')).toMatchObject({ status: 'revoked' })
    expect(await auth.authenticate({ accountId: 'acc', passcode: own.value })).toMatchObject({ statusCode: 400, reason: 'revoked' })
    await expect(auth.userPasscodes.reveal(user, 'acc')).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.userPasscodes.reset(admin, 'acc', 'u1')).rejects.toBeInstanceOf(NotFoundError)
  })
})

describe('SPEC 5.12 reset keeps the validity and restarts it; revoked can be granted again', () => {
  it('restarts a finite validity from the reset', async () => {
    const { auth, clock } = await granted({ type: 'finite', days: 10 })
    clock.advance(4 * DAY_MS)
    const view = await auth.userPasscodes.reset(admin, 'acc', 'u1')
    expect(view.validity).toEqual({ type: 'finite', days: 10 })
    expect(view.expiresAt.getTime()).toBe(clock.ms + 10 * DAY_MS)
  })

  it('restarts an infinite validity: 10 calendar years from the reset', async () => {
    const { auth, clock } = await granted()
    clock.advance(40 * DAY_MS)
    const view = await auth.userPasscodes.reset(admin, 'acc', 'u1')
    const now = new Date(clock.ms)
    expect(view.expiresAt.getTime()).toBe(Date.UTC(now.getUTCFullYear() + 10, now.getUTCMonth(), now.getUTCDate()))
  })

  it('lets a revoked passcode be granted again', async () => {
    const { auth } = await granted()
    await auth.userPasscodes.revoke(admin, 'acc', 'u1')
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 5 } })).resolves.toMatchObject({
      status: 'expiring_soon',
    })
  })

  it('expires a finite user passcode: 401 at the expiry instant', async () => {
    const { auth, clock } = await granted({ type: 'finite', days: 2 })
    const own = await auth.userPasscodes.reveal(user, 'acc')
    clock.advance(2 * DAY_MS)
    expect(await auth.authenticate({ accountId: 'acc', passcode: own.value })).toMatchObject({ statusCode: 401 })
  })
})

describe('SPEC 5.13 who sees what', () => {
  it('does not show the granting admin the value', async () => {
    const { view } = await granted()
    expect(view).not.toHaveProperty('value')
    expect(Object.keys(view).sort()).toEqual([
      'accountId',
      'allowedAddresses',
      'credits',
      'expiresAt',
      'grantedAt',
      'hint',
      'lastUsedAt',
      'lastUsedPartner',
      'leak',
      'policyViolations',
      'rateLimit',
      'revokedAt',
      'scopes',
      'status',
      'unknownScopes',
      'unused',
      'userId',
      'validity',
      'violatesPolicy',
    ])
  })

  it('reveals only the actor’s own passcode', async () => {
    const { auth } = await granted()
    await expect(auth.userPasscodes.reveal(admin, 'acc')).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.userPasscodes.reveal({ userId: 'u2', role: 'member' }, 'acc')).rejects.toBeInstanceOf(NotFoundError)
    // SPEC 5.31: any member sees the view (no value), never the value itself.
    await expect(auth.userPasscodes.get({ userId: 'u2', role: 'member' }, 'acc', 'u1')).resolves.toMatchObject({ userId: 'u1' })
    await expect(auth.userPasscodes.get(user, 'acc', 'u1')).resolves.toMatchObject({ userId: 'u1' })
  })

  it("SPEC 5.31: lists the account's user passcodes to any member, without values, revoked ones included", async () => {
    const { auth } = await granted()
    await auth.userPasscodes.grant(admin, 'acc', 'u0', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.revoke(admin, 'acc', 'u0')
    await auth.userPasscodes.grant(admin, 'other', 'u9', { validity: { type: 'infinite' } })
    const listed = await auth.userPasscodes.list({ userId: 'u2', role: 'member' }, 'acc')
    expect(listed.map((view) => [view.userId, view.status])).toEqual([
      ['u0', 'revoked'],
      ['u1', 'active'],
    ])
    expect(listed.every((view) => !('value' in view) && !('ciphertext' in view))).toBe(true)
  })
})

describe('SPEC 5.6 user passcodes at rest', () => {
  it('stores the hash and a dir+A256GCM JWE with a kid, never the value in clear', async () => {
    const store = memoryStore()
    const { auth } = setup({ store })
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const own = await auth.userPasscodes.reveal(user, 'acc')
    const record = (await store.getUserPasscode('acc', 'u1'))!
    expect(JSON.stringify(record)).not.toContain(own.value)
    expect(record.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(decodeProtectedHeader(record.ciphertext)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })
    const { plaintext } = await compactDecrypt(record.ciphertext, TEST_KEY)
    expect(JSON.parse(new TextDecoder().decode(plaintext)).v).toBe(own.value)
  })

  it('rotates keys by kid: old values stay readable, new ones use the first key', async () => {
    const store = memoryStore()
    const oldKey = { id: 'old', key: TEST_KEY }
    const newKey = { id: 'new', key: new Uint8Array(32).fill(2) }
    const before = setup({ store, encryptionKeys: [oldKey] })
    await before.auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const value = (await before.auth.userPasscodes.reveal(user, 'acc')).value
    const after = setup({ store, encryptionKeys: [newKey, oldKey] })
    expect((await after.auth.userPasscodes.reveal(user, 'acc')).value).toBe(value)
    await after.auth.userPasscodes.grant(admin, 'acc', 'u2', { validity: { type: 'infinite' } })
    expect(decodeProtectedHeader((await store.getUserPasscode('acc', 'u2'))!.ciphertext).kid).toBe('new')
    const withoutOld = setup({ store, encryptionKeys: [newKey] })
    await expect(withoutOld.auth.userPasscodes.reveal(user, 'acc')).rejects.toThrow(/No encryption key with id "old"/)
  })

  it('does not decrypt a ciphertext moved onto another user', async () => {
    const store = memoryStore()
    const { auth } = setup({ store })
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const stolen = (await store.getUserPasscode('acc', 'u1'))!.ciphertext
    await auth.userPasscodes.grant(admin, 'acc', 'u2', { validity: { type: 'infinite' } })
    const target = (await store.getUserPasscode('acc', 'u2'))!
    await store.revokeUserPasscode('acc', 'u2', 0, audited('acc', 'user_passcode.revoked'))
    await store.grantUserPasscode({ ...target, ciphertext: stolen, revokedAt: null }, 0, audited(target, 'user_passcode.granted'))
    await expect(auth.userPasscodes.reveal({ userId: 'u2', role: 'member' }, 'acc')).rejects.toThrow(/does not belong/)
  })

  it('fails with a clear configuration error when no key is configured', async () => {
    const { auth } = setup({ encryptionKeys: undefined })
    const error = await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigurationError)
    expect((error as Error).message).toMatch(/encryptionKeys/)
  })

  it('takes the keys as the text of PASSCODE_AUTH_ENCRYPTION_KEYS: the first entry encrypts, every one decrypts', async () => {
    const store = memoryStore()
    const oldKey = `old:${Buffer.from(TEST_KEY).toString('base64url')}`
    const newKey = `new:${Buffer.from(new Uint8Array(32).fill(2)).toString('base64url')}`
    const before = setup({ store, encryptionKeys: oldKey })
    await before.auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    const value = (await before.auth.userPasscodes.reveal(user, 'acc')).value
    const after = setup({ store, encryptionKeys: ` ${newKey} , ${oldKey}` })
    expect((await after.auth.userPasscodes.reveal(user, 'acc')).value).toBe(value)
    await after.auth.userPasscodes.grant(admin, 'acc', 'u2', { validity: { type: 'infinite' } })
    expect(decodeProtectedHeader((await store.getUserPasscode('acc', 'u2'))!.ciphertext).kid).toBe('new')
  })

  it.each([
    ['empty (a variable set to nothing)', '', 'is empty'],
    ['a key without its id', Buffer.from(TEST_KEY).toString('base64url'), 'entry 1 of the text'],
    ['a second entry that is not id:key', `k1:${Buffer.from(TEST_KEY).toString('base64url')},k2:not base64url!`, 'entry 2 of the text'],
  ])('refuses key text that is %s, naming the option and the form of PASSCODE_AUTH_ENCRYPTION_KEYS, never the value', (_, text, problem) => {
    const error = (() => {
      try {
        setup({ encryptionKeys: text })
      } catch (thrown) {
        return thrown as InvalidOptionsError
      }
      throw new Error('no error')
    })()
    expect(error).toBeInstanceOf(InvalidOptionsError)
    expect(error.option).toBe('encryptionKeys')
    expect(error.message).toContain(problem)
    expect(error.message).toContain('PASSCODE_AUTH_ENCRYPTION_KEYS')
    expect(error.message).toContain('`npx passcode-auth keys generate` makes one')
    if (text !== '') expect(error.message).not.toContain(text.split(',').at(-1)!.split(':').at(-1))
  })

  it('rejects keys that are not 32 bytes or reuse an id', () => {
    expect(() => setup({ encryptionKeys: [{ id: 'a', key: new Uint8Array(16) }] })).toThrow(/32 bytes/)
    expect(() =>
      setup({
        encryptionKeys: [
          { id: 'a', key: TEST_KEY },
          { id: 'a', key: TEST_KEY },
        ],
      }),
    ).toThrow(/used twice/)
  })
})

describe('SPEC 5.42 a leaked user passcode shows as such', () => {
  const url = 'https://github.com/o/r/blob/main/.env'

  it('has leak: null until found in public; then get and list show where and when, to any member, until an admin grants a new one', async () => {
    const { auth, clock, view } = await granted()
    expect(view.leak).toBeNull()
    await auth.userPasscodes.grant(admin, 'acc', 'u2', { validity: { type: 'infinite' } })
    await auth.userPasscodes.revoke(admin, 'acc', 'u2')
    expect((await auth.userPasscodes.list(admin, 'acc')).map((listed) => [listed.userId, listed.leak])).toEqual([
      ['u1', null],
      ['u2', null],
    ])

    const own = await auth.userPasscodes.reveal(user, 'acc')
    expect(own.passcode.leak).toBeNull()
    const reportedAt = new Date(clock.ms)
    await auth.leaks.report([{ token: own.value, url, source: 'content' }], { source: 'github' })
    const leak = { reportedAt, url, source: 'content' }
    await expect(auth.userPasscodes.get(user, 'acc', 'u1')).resolves.toMatchObject({ status: 'revoked', leak })
    await expect(auth.userPasscodes.get({ userId: 'u3', role: 'member' }, 'acc', 'u1')).resolves.toMatchObject({ leak })
    // A revoke by an admin is not a leak: u2 stays unmarked.
    expect((await auth.userPasscodes.list(user, 'acc')).map((listed) => [listed.userId, listed.status, listed.leak])).toEqual([
      ['u1', 'revoked', leak],
      ['u2', 'revoked', null],
    ])
    // Reset needs a passcode that is not revoked: the leak's revoke leaves grant as the admin's way, and the mark stays.
    await expect(auth.userPasscodes.reset(admin, 'acc', 'u1')).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.userPasscodes.get(admin, 'acc', 'u1')).resolves.toMatchObject({ leak })

    const regranted = await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 90 } })
    expect(regranted).toMatchObject({ status: 'active', leak: null })
    await expect(auth.userPasscodes.get(user, 'acc', 'u1')).resolves.toMatchObject({ leak: null })
    expect((await auth.userPasscodes.list(admin, 'acc')).every((listed) => listed.leak === null)).toBe(true)
    // The public value is dead: a second report of it changes nothing and marks nothing.
    expect(await auth.leaks.report([own.value], { source: 'github' })).toEqual([{ token: own.value, label: 'false_positive' }])
    await expect(auth.userPasscodes.get(user, 'acc', 'u1')).resolves.toMatchObject({ status: 'active', leak: null })
  })
})
