import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, generatePasscode } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, setup, TEST_KEY } from '../helpers/service'

describe('SPEC 5.18 audit events', () => {
  it('reports every create, edit, delete, grant, reset, revoke, reveal, setting and auth outcome', async () => {
    const { auth, events, clock } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 10 })
    await auth.passcodes.update(admin, 'acc', passcode.id, { name: 'B' })
    await auth.authenticate({ accountId: 'acc', passcode: value })
    await auth.authenticate({ accountId: 'acc', passcode: generatePasscode() })
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })
    await auth.userPasscodes.reveal({ userId: 'u1', role: 'member' }, 'acc')
    await auth.userPasscodes.reset(admin, 'acc', 'u1')
    await auth.userPasscodes.revoke(admin, 'acc', 'u1')
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    expect(events.map((e) => e.type)).toEqual([
      'passcode.created',
      'passcode.updated',
      'auth.succeeded',
      'auth.failed',
      'account.accepted_passcodes_changed',
      'user_passcode.granted',
      'user_passcode.revealed',
      'user_passcode.reset',
      'user_passcode.revoked',
      'passcode.deleted',
    ])
    expect(events[0]).toMatchObject({ accountId: 'acc', actorUserId: 'u_admin', passcodeId: passcode.id, name: 'A' })
    expect(events[0]?.at.getTime()).toBe(clock.ms)
    expect(events[1]).toMatchObject({ changed: ['name'], name: 'B' })
    expect(events[3]).toMatchObject({ type: 'auth.failed', reason: 'unknown_passcode', statusCode: 400 })
    clock.advance(10 * DAY_MS)
  })

  it('survives a hook that throws or rejects', async () => {
    for (const onEvent of [
      () => {
        throw new Error('hook down')
      },
      () => Promise.reject(new Error('hook down')),
    ]) {
      const auth = createPasscodeAuth({ store: memoryStore(), onEvent, encryptionKeys: [{ id: 'k', key: TEST_KEY }] })
      const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 10 })
      expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    }
  })
})
