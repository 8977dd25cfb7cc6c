import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CapReachedError, DuplicateNameError, ForbiddenError, InvalidInputError, NotFoundError, ReactivationRefusedError } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { admin, member, settingsWriter, setup } from '../helpers/service'

describe('SPEC 2 account passcodes', () => {
  it('requires a name', async () => {
    const { auth } = setup()
    await expect(auth.passcodes.create(admin, 'acc', { expiry: 30 } as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'name',
    })
  })

  it('requires an expiry of whole days or "forever"', async () => {
    const { auth } = setup()
    await expect(auth.passcodes.create(admin, 'acc', { name: 'x' } as never)).rejects.toMatchObject({ field: 'expiry' })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'x', expiry: 'never' as never })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(auth.passcodes.create(admin, 'acc', { name: 'x', expiry: 2.5 })).rejects.toMatchObject({ field: 'expiry' })
    const forever = await auth.passcodes.create(admin, 'acc', { name: 'f', expiry: 'forever' })
    expect(forever.passcode.expiresAt).toBeNull()
  })

  it('generates the value and returns it once, at creation, never again', async () => {
    const { auth } = setup()
    const issued = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    expect(issued.value).toMatch(/^psc_/)
    const listed = await auth.passcodes.list(admin, 'acc')
    expect(JSON.stringify(listed)).not.toContain(issued.value)
    expect(listed[0]).not.toHaveProperty('value')
    expect(listed[0]?.hint).toBe(`psc_…${issued.value.slice(-4)}`)
  })

  it('identifies a passcode uniquely by name within the account, not across accounts', async () => {
    const { auth } = setup()
    await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })).rejects.toBeInstanceOf(DuplicateNameError)
    await expect(auth.passcodes.create(admin, 'other', { name: 'Acme', expiry: 90 })).resolves.toBeDefined()
  })

  it('lets only admins or users with User Settings write access manage passcodes', async () => {
    const { auth } = setup()
    await expect(auth.passcodes.create(member, 'acc', { name: 'A', expiry: 1 })).rejects.toBeInstanceOf(ForbiddenError)
    const { passcode } = await auth.passcodes.create(settingsWriter, 'acc', { name: 'A', expiry: 1 })
    await expect(auth.passcodes.update(member, 'acc', passcode.id, { name: 'B' })).rejects.toBeInstanceOf(ForbiddenError)
    await expect(auth.passcodes.delete(member, 'acc', passcode.id)).rejects.toBeInstanceOf(ForbiddenError)
    await expect(auth.passcodes.delete(settingsWriter, 'acc', passcode.id)).resolves.toBeUndefined()
  })

  it('SPEC 5.31: lets any member of the account list its passcodes, never with a value', async () => {
    const { auth } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    const listed = await auth.passcodes.list(member, 'acc')
    expect(listed).toEqual([passcode])
    expect(JSON.stringify(listed)).not.toContain(value)
    await expect(auth.passcodes.list({ userId: '', role: 'member' }, 'acc')).rejects.toMatchObject({ field: 'actor.userId' })
  })

  it('holds at most 100 passcodes per account', async () => {
    const { auth } = setup()
    for (let i = 0; i < 100; i++) await auth.passcodes.create(admin, 'acc', { name: `p${i}`, expiry: 30 })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'p100', expiry: 30 })).rejects.toMatchObject({
      code: 'ERR_CAP_REACHED',
      limit: 100,
    })
    await expect(auth.passcodes.create(admin, 'acc2', { name: 'p100', expiry: 30 })).resolves.toBeDefined()
  })

  it('can be edited after creation', async () => {
    const { auth, clock } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Old', expiry: 10 })
    clock.advance(DAY_MS)
    const updated = await auth.passcodes.update(admin, 'acc', passcode.id, { name: 'New', expiry: 100 })
    expect(updated).toMatchObject({ name: 'New', expiry: 100, status: 'active' })
    expect(updated.expiresAt?.getTime()).toBe(clock.ms + 100 * DAY_MS)
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(outcome).toMatchObject({ ok: true, principal: { passcodeName: 'New' } })
  })

  it('can be deleted any time, and calls with it stop working at once', async () => {
    const { auth } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true) // now cached
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
    await expect(auth.passcodes.delete(admin, 'acc', passcode.id)).rejects.toBeInstanceOf(NotFoundError)
  })

  it('is expiring_soon when 30 days or fewer remain, and expired at the expiry instant', async () => {
    const { auth, clock } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 31 })
    expect(passcode.status).toBe('active')
    clock.advance(DAY_MS)
    expect((await auth.passcodes.list(admin, 'acc'))[0]?.status).toBe('expiring_soon')
    clock.advance(30 * DAY_MS - 1)
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    clock.advance(1)
    expect((await auth.passcodes.list(admin, 'acc'))[0]?.status).toBe('expired')
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, statusCode: 401 })
  })
})

describe('SPEC 5.8 edits', () => {
  it('counts a new expiry from the moment of the edit', async () => {
    const { auth, clock } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 5 })
    clock.advance(3 * DAY_MS)
    const updated = await auth.passcodes.update(admin, 'acc', passcode.id, { expiry: 5 })
    expect(updated.expiresAt?.getTime()).toBe(clock.ms + 5 * DAY_MS)
  })

  it('refuses to bring an expired passcode back unless allowReactivation', async () => {
    const { auth, clock } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 1 })
    clock.advance(DAY_MS)
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { expiry: 30 })).rejects.toBeInstanceOf(ReactivationRefusedError)
    // Renaming an expired passcode is allowed: it does not bring it back.
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { name: 'B' })).resolves.toMatchObject({ status: 'expired' })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ statusCode: 401 })

    const permissive = setup({ allowReactivation: true })
    const created = await permissive.auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 1 })
    permissive.clock.advance(2 * DAY_MS)
    await expect(permissive.auth.passcodes.update(admin, 'acc', created.passcode.id, { expiry: 30 })).resolves.toMatchObject({
      status: 'expiring_soon',
    })
    expect((await permissive.auth.authenticate({ accountId: 'acc', passcode: created.value })).ok).toBe(true)
  })

  it('keeps names unique on rename and needs at least one change', async () => {
    const { auth } = setup()
    await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 1 })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 1 })
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { name: ' a ' })).rejects.toBeInstanceOf(DuplicateNameError)
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { name: 'b' })).resolves.toMatchObject({ name: 'b' })
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, {})).rejects.toBeInstanceOf(InvalidInputError)
    await expect(auth.passcodes.update(admin, 'acc', 'missing', { name: 'Z' })).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.passcodes.update(admin, 'other', passcode.id, { name: 'Z' })).rejects.toBeInstanceOf(NotFoundError)
  })
})

describe('SPEC 5.9 cap', () => {
  it('counts expired passcodes and frees a slot on delete', async () => {
    const { auth, clock } = setup({ limits: { maxAccountPasscodes: 3 } })
    const first = await auth.passcodes.create(admin, 'acc', { name: 'a', expiry: 1 })
    await auth.passcodes.create(admin, 'acc', { name: 'b', expiry: 1 })
    await auth.passcodes.create(admin, 'acc', { name: 'c', expiry: 1 })
    clock.advance(2 * DAY_MS)
    const listed = await auth.passcodes.list(admin, 'acc')
    expect(listed.map((p) => p.status)).toEqual(['expired', 'expired', 'expired'])
    await expect(auth.passcodes.create(admin, 'acc', { name: 'd', expiry: 1 })).rejects.toBeInstanceOf(CapReachedError)
    await auth.passcodes.delete(admin, 'acc', first.passcode.id)
    await expect(auth.passcodes.create(admin, 'acc', { name: 'd', expiry: 1 })).resolves.toBeDefined()
  })

  it('holds under 300 concurrent creates: exactly 100 passcodes and 200 cap errors', async () => {
    const { auth } = setup()
    const results = await Promise.allSettled(
      Array.from({ length: 300 }, (_, i) => auth.passcodes.create(admin, 'acc', { name: `n${i}`, expiry: 30 })),
    )
    const fulfilled = results.filter((r) => r.status === 'fulfilled')
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(fulfilled).toHaveLength(100)
    expect(rejected).toHaveLength(200)
    expect(rejected.every((r) => r.reason instanceof CapReachedError)).toBe(true)
    expect(await auth.passcodes.list(admin, 'acc')).toHaveLength(100)
  })

  it('gives exactly one success to concurrent creates of the same name', async () => {
    const { auth } = setup()
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => auth.passcodes.create(admin, 'acc', { name: i % 2 ? 'Same' : ' same ', expiry: 30 })),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof DuplicateNameError)).toHaveLength(49)
  })
})

describe('SPEC 5.10 names', () => {
  it('trims, limits to 64 characters and compares case-insensitively (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '' && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s)),
        fc.constantFrom('upper', 'lower', 'pad'),
        async (name, variant) => {
          const { auth } = setup()
          const created = await auth.passcodes.create(admin, 'acc', { name, expiry: 1 })
          expect(created.passcode.name).toBe(name.trim())
          const other = variant === 'upper' ? name.toUpperCase() : variant === 'lower' ? name.toLowerCase() : `  ${name}\t`
          if (other.trim().toLowerCase() === name.trim().toLowerCase()) {
            await expect(auth.passcodes.create(admin, 'acc', { name: other, expiry: 1 })).rejects.toBeInstanceOf(DuplicateNameError)
          }
        },
      ),
      { numRuns: 200, seed: 21 },
    )
    const { auth } = setup()
    await expect(auth.passcodes.create(admin, 'acc', { name: 'x'.repeat(65), expiry: 1 })).rejects.toMatchObject({ field: 'name' })
    await expect(auth.passcodes.create(admin, 'acc', { name: '   ', expiry: 1 })).rejects.toMatchObject({ field: 'name' })
  })
})

describe('input validation', () => {
  it.each([0, 3651, -5])('rejects an expiry of %s days, naming the field', async (expiry) => {
    const { auth } = setup()
    const error = await auth.passcodes.create(admin, 'acc', { name: 'x', expiry }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as InvalidInputError).field).toBe('expiry')
  })

  it.each([1, 3650])('accepts an expiry of %s days', async (expiry) => {
    const { auth } = setup()
    await expect(auth.passcodes.create(admin, 'acc', { name: 'x', expiry })).resolves.toBeDefined()
  })

  it('rejects unknown fields, bad account IDs and bad actors', async () => {
    const { auth } = setup()
    await expect(auth.passcodes.create(admin, 'acc', { name: 'x', expiry: 1, value: 'mine' } as never)).rejects.toBeInstanceOf(InvalidInputError)
    await expect(auth.passcodes.create(admin, 'bad id', { name: 'x', expiry: 1 })).rejects.toMatchObject({ field: 'accountId' })
    await expect(auth.passcodes.create({ userId: 'x', role: 'root' } as never, 'acc', { name: 'x', expiry: 1 })).rejects.toMatchObject({
      field: 'actor.role',
    })
  })
})

describe('input validation: hostile shapes', () => {
  it('says "must be an object" once, naming the field, for an input or actor that is not an object', async () => {
    const { auth } = setup()
    const cases: [() => Promise<unknown>, string][] = [
      [() => auth.passcodes.create(admin, 'acc', null as never), 'Invalid input: must be an object'],
      [() => auth.passcodes.create(admin, 'acc', [] as never), 'Invalid input: must be an object'],
      [() => auth.passcodes.update(admin, 'acc', 'pc_1', 'x' as never), 'Invalid input: must be an object'],
      [() => auth.userPasscodes.grant(admin, 'acc', 'u_1', null as never), 'Invalid input: must be an object'],
      [() => auth.passcodes.create(null as never, 'acc', { name: 'x', expiry: 1 }), 'Invalid actor: must be an object'],
      [() => auth.passcodes.list(42 as never, 'acc'), 'Invalid actor: must be an object'],
    ]
    for (const [run, message] of cases) {
      const error = await run().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(InvalidInputError)
      expect((error as Error).message).toBe(message)
    }
  })

  it("reads only the actor's own properties: a role inherited from a prototype is no role", async () => {
    const { auth } = setup()
    const impostor = Object.assign(Object.create({ role: 'admin', canWriteUserSettings: true }) as object, { userId: 'u_evil' })
    await expect(auth.passcodes.create(impostor as never, 'acc', { name: 'x', expiry: 1 })).rejects.toMatchObject({ field: 'actor.role' })
    await expect(auth.userPasscodes.grant(impostor as never, 'acc', 'u_1', { validity: { type: 'infinite' } })).rejects.toMatchObject({
      field: 'actor.role',
    })
    const member = Object.assign(Object.create({ canWriteUserSettings: true }) as object, { userId: 'u_m', role: 'member' })
    await expect(auth.passcodes.create(member as never, 'acc', { name: 'x', expiry: 1 })).rejects.toBeInstanceOf(ForbiddenError)
    // Inherited input fields are not read either.
    const input = Object.assign(Object.create({ expiry: 30 }) as object, { name: 'x' })
    await expect(auth.passcodes.create(admin, 'acc', input as never)).rejects.toMatchObject({ field: 'expiry' })
    expect(await auth.passcodes.list(admin, 'acc')).toEqual([])
  })
})
