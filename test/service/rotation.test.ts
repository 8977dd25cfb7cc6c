import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ForbiddenError, NotFoundError, RotationRefusedError } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, member, settingsWriter, setup } from '../helpers/service'

const MINUTE = 60_000
const ok = (accountId: string) => ({ ok: true, principal: expect.objectContaining({ accountId }) })

describe('SPEC 5.26 rotation with overlap', () => {
  it('issues a new value once for the same passcode: id, name, expiry, binding kept', async () => {
    const { auth, clock } = setup({ partners: ['acme'] })
    const created = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 30, partners: ['acme'] })
    clock.advance(DAY_MS)
    const rotated = await auth.passcodes.rotate(admin, 'acc', created.passcode.id, { overlapMinutes: 60 })
    expect(rotated.value).toMatch(/^psc_/)
    expect(rotated.value).not.toBe(created.value)
    const { passcode } = rotated
    expect(passcode).toMatchObject({
      id: created.passcode.id,
      name: 'Acme',
      expiry: 30,
      expiresAt: created.passcode.expiresAt,
      partners: ['acme'],
      previousValueEndsAt: new Date(clock.ms + 60 * MINUTE),
    })
    expect(passcode.hint).not.toBe(created.passcode.hint)
    expect(JSON.stringify(rotated)).not.toContain(rotated.value)
    expect(inspect(rotated)).not.toContain(rotated.value)
    expect(await auth.passcodes.list(admin, 'acc')).toHaveLength(1)
  })

  it('the previous value works until the overlap ends, then stops (cache included)', async () => {
    const { auth, clock } = setup()
    const { value: old, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject(ok('acc')) // cached
    const { value: fresh } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 10 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: fresh })).toMatchObject(ok('acc'))
    expect(await auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject(ok('acc'))
    clock.advance(10 * MINUTE - 1)
    expect(await auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject(ok('acc'))
    clock.advance(1)
    expect(await auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject({ ok: false, statusCode: 400, reason: 'unknown_passcode' })
    expect(await auth.authenticate({ accountId: 'acc', passcode: fresh })).toMatchObject(ok('acc'))
    expect((await auth.passcodes.list(admin, 'acc'))[0]?.previousValueEndsAt).toBeNull()
  })

  it('an overlap of 0 stops the previous value at once, on every instance', async () => {
    const store = memoryStore()
    const one = setup({ store })
    const two = setup({ store })
    const { value: old, passcode } = await one.auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 'forever' })
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: old })).ok).toBe(true) // cached on two
    const { value: fresh, passcode: view } = await one.auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 0 })
    expect(view.previousValueEndsAt).toBeNull()
    expect(await two.auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject({ ok: false, statusCode: 400 })
    expect(await one.auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject({ ok: false, statusCode: 400 })
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: fresh })).ok).toBe(true)
  })

  it('an overlap ends on another instance too, even when that instance cached the old value before the rotation', async () => {
    const store = memoryStore()
    const one = setup({ store })
    const two = setup({ store, clock: one.clock })
    const { value: old, passcode } = await one.auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: old })).ok).toBe(true)
    await one.auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 5 })
    expect((await two.auth.authenticate({ accountId: 'acc', passcode: old })).ok).toBe(true)
    one.clock.advance(5 * MINUTE)
    expect(await two.auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject({ ok: false, statusCode: 400 })
  })

  it('rotating again during an overlap ends the older overlap: only one previous value', async () => {
    const { auth } = setup()
    const { value: first, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    const { value: second } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 60 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: first })).ok).toBe(true)
    const { value: third } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 60 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: first })).toMatchObject({ ok: false, statusCode: 400 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: second })).ok).toBe(true)
    expect((await auth.authenticate({ accountId: 'acc', passcode: third })).ok).toBe(true)
  })

  it('deleting during an overlap stops both values at once', async () => {
    const { auth } = setup()
    const { value: old, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    const { value: fresh } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 60 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: old })).ok).toBe(true)
    expect((await auth.authenticate({ accountId: 'acc', passcode: fresh })).ok).toBe(true)
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    expect(await auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject({ ok: false, statusCode: 400 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: fresh })).toMatchObject({ ok: false, statusCode: 400 })
  })

  it('refuses to rotate an expired passcode (rotation keeps the expiry); an edit brings it back first', async () => {
    const { auth, clock } = setup({ allowReactivation: true })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 1 })
    clock.advance(DAY_MS)
    const refused = auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 0 })
    await expect(refused).rejects.toBeInstanceOf(RotationRefusedError)
    await expect(refused).rejects.toMatchObject({ code: 'ERR_ROTATION_REFUSED', message: expect.stringContaining('edit') })
    await auth.passcodes.update(admin, 'acc', passcode.id, { expiry: 30 })
    const rotated = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 0 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: rotated.value })).ok).toBe(true)
  })

  it('the previous value of a passcode that expires during the overlap answers 401 like the current one', async () => {
    const { auth, clock } = setup()
    const { value: old, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 1 })
    clock.advance(DAY_MS - 5 * MINUTE)
    const { value: fresh } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 60 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: old })).ok).toBe(true)
    clock.advance(5 * MINUTE)
    expect(await auth.authenticate({ accountId: 'acc', passcode: old })).toMatchObject({ ok: false, statusCode: 401 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: fresh })).toMatchObject({ ok: false, statusCode: 401 })
  })

  it('takes overlapMinutes as a required whole number from 0 to 10 080', async () => {
    const { auth } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    for (const input of [{}, { overlapMinutes: -1 }, { overlapMinutes: 10_081 }, { overlapMinutes: 1.5 }, { overlapMinutes: '5' }]) {
      await expect(auth.passcodes.rotate(admin, 'acc', passcode.id, input as never)).rejects.toMatchObject({
        code: 'ERR_INVALID_INPUT',
        field: 'overlapMinutes',
      })
    }
    await expect(auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 1, extra: 1 } as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
    })
    const longest = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 10_080 })
    expect(longest.passcode.previousValueEndsAt!.getTime() - longest.passcode.updatedAt.getTime()).toBe(7 * DAY_MS)
  })

  it('who may rotate: admins and User Settings writers; unknown ids and other accounts are not found', async () => {
    const { auth } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    await expect(auth.passcodes.rotate(member, 'acc', passcode.id, { overlapMinutes: 0 })).rejects.toBeInstanceOf(ForbiddenError)
    expect((await auth.passcodes.rotate(settingsWriter, 'acc', passcode.id, { overlapMinutes: 0 })).value).toMatch(/^psc_/)
    await expect(auth.passcodes.rotate(admin, 'other', passcode.id, { overlapMinutes: 0 })).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.passcodes.rotate(admin, 'acc', 'missing', { overlapMinutes: 0 })).rejects.toBeInstanceOf(NotFoundError)
  })

  it('is an audit event without values, and leaves the cap alone', async () => {
    const { auth, events } = setup({ limits: { maxAccountPasscodes: 1 } })
    const { value: old, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    const { value: fresh, passcode: view } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 15 })
    const rotated = events.find((event) => event.type === 'passcode.rotated')
    expect(rotated).toMatchObject({
      type: 'passcode.rotated',
      accountId: 'acc',
      actorUserId: admin.userId,
      passcodeId: passcode.id,
      name: 'P',
      hint: view.hint,
      previousHint: passcode.hint,
      overlapMinutes: 15,
      previousValueEndsAt: view.previousValueEndsAt,
    })
    expect(JSON.stringify(events)).not.toContain(old)
    expect(JSON.stringify(events)).not.toContain(fresh)
    await expect(auth.passcodes.create(admin, 'acc', { name: 'Q', expiry: 30 })).rejects.toMatchObject({ code: 'ERR_CAP_REACHED' })
  })
})
