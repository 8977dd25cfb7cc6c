import { describe, expect, it } from 'vitest'
import { encodeAnswer, issuedPasscodeSchema, passcodeViewSchema, userPasscodeViewSchema } from '../../src/protocol/management-schemas'
import { admin, setup } from '../helpers/service'

/** The management API writes its answers through these schemas: the bytes must be what JSON.stringify of the views gave. */
describe('management answer schemas', () => {
  it('encode a view exactly as JSON.stringify did, dates as ISO texts, every field kept', async () => {
    const whitelist = new Set(['acme', 'globex'])
    const { auth, clock } = setup({ partners: { isWhitelisted: async (name: string) => whitelist.has(name.trim().toLowerCase()) } })
    await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90, partners: ['Acme', 'Globex'] })
    whitelist.delete('globex')
    const created = { passcode: (await auth.passcodes.list(admin, 'acc_1'))[0]! }
    clock.advance(60_000)
    const rotated = await auth.passcodes.rotate(admin, 'acc_1', created.passcode.id, { overlapMinutes: 60 })
    const forever = await auth.passcodes.create(admin, 'acc_1', { name: 'Forever', expiry: 'forever' })
    for (const view of [created.passcode, rotated.passcode, forever.passcode]) {
      expect(encodeAnswer(passcodeViewSchema, view)).toEqual(JSON.parse(JSON.stringify(view)))
    }
    expect(rotated.passcode.previousValueEndsAt).toBeInstanceOf(Date)
    expect(created.passcode.partnersNotWhitelisted).toEqual(['globex'])

    await auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.revoke(admin, 'acc_1', 'u_amy')
    const revoked = (await auth.userPasscodes.get(admin, 'acc_1', 'u_amy'))!
    expect(revoked.revokedAt).toBeInstanceOf(Date)
    expect(encodeAnswer(userPasscodeViewSchema, revoked)).toEqual(JSON.parse(JSON.stringify(revoked)))
  })

  it('carry an issued value only where the route copies it out', async () => {
    const { auth } = setup()
    const issued = await auth.passcodes.create(admin, 'acc_1', { name: 'A', expiry: 1 })
    const body = encodeAnswer(issuedPasscodeSchema, { passcode: issued.passcode, value: issued.value })
    expect(body.value).toBe(issued.value)
    expect(body.passcode).toEqual(JSON.parse(JSON.stringify(issued.passcode)))
  })

  it('refuse a view that does not fit, rather than send it', () => {
    expect(() => encodeAnswer(userPasscodeViewSchema, { status: 'active' } as never)).toThrow()
  })
})
