import { describe, expect, it } from 'vitest'
import { createManagementApi } from '../../../src/dashboard/index'
import { memoryMailer } from '../../../src/memory'
import { LEAKED_PASSCODE_ADVICE } from '../../../src/core/labels'
import { admin, setup } from '../../helpers/service'

const MINUTE = 60_000
const recipients = (accountId: string) => [`admins+${accountId}@example.com`]

/** A service with one passcode whose value a leak report found in public (disabled, mark open). */
async function leaked() {
  const mailer = memoryMailer()
  const context = setup({ mailer, recipients })
  const { auth } = context
  const created = await auth.passcodes.create(admin, 'acc', { name: 'Acme export', expiry: 90 })
  expect(await auth.leaks.report([created.value], { source: 'github' })).toEqual([{ token: created.value, label: 'true_positive' }])
  const works = async (value: string) => (await auth.authenticate({ accountId: 'acc', passcode: value })).ok
  return { ...context, mailer, id: created.passcode.id, leakedValue: created.value, works }
}

describe('SPEC 5.45 leaked means gone', () => {
  it('refuses an overlap for a leaked passcode with a validation error on overlapMinutes that says why, and changes nothing', async () => {
    const { auth, store, id, events } = await leaked()
    const before = await store.getAccountPasscode('acc', id)
    const eventCount = events.length
    for (const overlapMinutes of [1, 60, 10_080]) {
      const refused = await auth.passcodes.rotate(admin, 'acc', id, { overlapMinutes }).catch((error: unknown) => error)
      expect(refused).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'overlapMinutes' })
      expect((refused as Error).message).toBe(
        'Invalid overlapMinutes: must be 0: this passcode was found in public, and a leaked value gets no overlap (it never works again once rotated)',
      )
    }
    expect(await store.getAccountPasscode('acc', id)).toEqual(before)
    expect(events).toHaveLength(eventCount)
    expect((await auth.passcodes.list(admin, 'acc'))[0]!.leak).not.toBeNull()
  })

  it('an enable does not make the value less public: a rotation after it refuses an overlap the same way, and the leaked value stops at the rotation', async () => {
    const { auth, id, leakedValue, works, clock, events } = await leaked()
    const enabled = await auth.passcodes.enable(admin, 'acc', id)
    // The enable closes the mark; the value it brought back is still the one reported.
    expect(enabled).toMatchObject({ leak: null, valueLeaked: true, status: 'active' })
    expect(await works(leakedValue)).toBe(true)
    const refused = await auth.passcodes.rotate(admin, 'acc', id, { overlapMinutes: 60 }).catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'overlapMinutes' })
    expect((refused as Error).message).toBe(
      'Invalid overlapMinutes: must be 0: this passcode was found in public, and a leaked value gets no overlap (it never works again once rotated)',
    )
    expect(await works(leakedValue)).toBe(true)

    const rotated = await auth.passcodes.rotate(admin, 'acc', id, {})
    expect(rotated.passcode).toMatchObject({ previousValueEndsAt: null, leak: null, valueLeaked: false, status: 'active' })
    expect(events.filter((event) => event.type === 'passcode.rotated').at(-1)).toMatchObject({ overlapMinutes: 0, previousValueEndsAt: null })
    clock.advance(MINUTE)
    expect(await works(leakedValue)).toBe(false)
    expect(await works(rotated.value)).toBe(true)
    // The new value did not leak: the next rotation keeps it for the overlap asked.
    const next = await auth.passcodes.rotate(admin, 'acc', id, { overlapMinutes: 60 })
    expect(next.passcode.previousValueEndsAt).toEqual(new Date(clock.ms + 60 * MINUTE))
    expect(await works(rotated.value)).toBe(true)
  })

  it('the issue: rotate (no overlap given: 0), then enable; the leaked value is refused at once and after, the new one works', async () => {
    const { auth, id, leakedValue, works, events } = await leaked()
    const rotated = await auth.passcodes.rotate(admin, 'acc', id, {})
    expect(rotated.passcode).toMatchObject({ previousValueEndsAt: null, leak: null, status: 'disabled' })
    expect(events.filter((event) => event.type === 'passcode.rotated').at(-1)).toMatchObject({ overlapMinutes: 0, previousValueEndsAt: null })
    await auth.passcodes.enable(admin, 'acc', id)
    expect(await works(leakedValue)).toBe(false)
    expect(await works(rotated.value)).toBe(true)
    expect(await auth.authenticate({ accountId: 'acc', passcode: leakedValue })).toMatchObject({ statusCode: 400 })
  })

  it('takes an explicit overlap of 0; once rotated the value is no longer the leaked one, and the next rotation may have an overlap', async () => {
    const { auth, id, clock, works } = await leaked()
    const first = await auth.passcodes.rotate(admin, 'acc', id, { overlapMinutes: 0 })
    await auth.passcodes.enable(admin, 'acc', id)
    const second = await auth.passcodes.rotate(admin, 'acc', id, { overlapMinutes: 60 })
    expect(second.passcode.previousValueEndsAt).toEqual(new Date(clock.ms + 60 * MINUTE))
    expect(await works(first.value)).toBe(true)
    expect(await works(second.value)).toBe(true)
  })

  it('a leaked previous value (found during its overlap) is gone with the next rotation, which gets no overlap either', async () => {
    const { auth, clock } = setup()
    const created = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    const rotated = await auth.passcodes.rotate(admin, 'acc', created.passcode.id, { overlapMinutes: 60 })
    clock.advance(MINUTE)
    expect(await auth.leaks.report([created.value], { source: 'chat' })).toEqual([{ token: created.value, label: 'true_positive' }])
    await expect(auth.passcodes.rotate(admin, 'acc', created.passcode.id, { overlapMinutes: 30 })).rejects.toMatchObject({ field: 'overlapMinutes' })
    const again = await auth.passcodes.rotate(admin, 'acc', created.passcode.id, {})
    await auth.passcodes.enable(admin, 'acc', created.passcode.id)
    for (const [value, ok] of [
      [created.value, false],
      [rotated.value, false],
      [again.value, true],
    ] as const) {
      expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(ok)
    }
  })

  it('an overlap is still required, as before, for a passcode that did not leak', async () => {
    const { auth } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    await expect(auth.passcodes.rotate(admin, 'acc', passcode.id, {})).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'overlapMinutes',
      message: 'Invalid overlapMinutes: must be a whole number of minutes (0 to 10080)',
    })
  })

  it('only an explicit enable without rotation brings the leaked value back', async () => {
    const { auth, id, leakedValue, works } = await leaked()
    expect(await works(leakedValue)).toBe(false)
    const enabled = await auth.passcodes.enable(admin, 'acc', id)
    expect(enabled.leak).toBeNull()
    expect(await works(leakedValue)).toBe(true)
  })

  it('the management API answers 400 with the field and the reason; an empty body rotates with no overlap', async () => {
    const { auth, id, leakedValue, works } = await leaked()
    const api = createManagementApi(auth)
    const rotate = (body: string) =>
      api.handle(
        {
          method: 'POST',
          path: `/passcodes/${id}/rotate`,
          header: (name) => ({ 'content-type': 'application/json' })[name],
          body: async () => ({ text: body }),
        },
        () => ({ accountId: 'acc', actor: admin }),
      )
    const refused = await rotate('{"overlapMinutes":60}')
    expect(refused.statusCode).toBe(400)
    expect(JSON.parse(refused.body)).toEqual({
      error: {
        code: 'ERR_INVALID_INPUT',
        field: 'overlapMinutes',
        message:
          'Invalid overlapMinutes: must be 0: this passcode was found in public, and a leaked value gets no overlap (it never works again once rotated)',
      },
    })
    const rotated = await rotate('{}')
    expect(rotated.statusCode).toBe(201)
    expect(JSON.parse(rotated.body)).toMatchObject({ passcode: { previousValueEndsAt: null, leak: null } })
    await auth.passcodes.enable(admin, 'acc', id)
    expect(await works(leakedValue)).toBe(false)
  })

  it('the email gives the advice the dashboard banner and docs/leaks.md give, word for word', async () => {
    const { mailer } = await leaked()
    expect(mailer.messages[0]!.text).toContain(LEAKED_PASSCODE_ADVICE)
  })
})
