import { describe, expect, it } from 'vitest'
import {
  CapReachedError,
  ConfigurationError,
  ForbiddenError,
  NotFoundError,
  ReactivationRefusedError,
  createPasscodeAuth,
  type PasscodeStore,
} from '../../src/index'
import { memoryStore } from '../../src/memory'
import { DAY_MS } from '../../src/core/time'
import { INVALID_CREDENTIALS, admin, manualClock, member, settingsWriter, setup } from '../helpers/service'
import { everyone, scriptedMailer } from './notify-fixtures'

const connectHeaders = (accountId: string, passcode: string) => ({ 'x-service-account-id': accountId, 'x-service-passcode': passcode })

describe('SPEC 5.38 disable without delete', () => {
  it('refuses a disabled passcode with the 400 of an unknown one, on authenticate and /v1/connect, and enables it again', async () => {
    const { auth } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    const unknownAuth = await auth.authenticate({ accountId: 'acc', passcode: value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A') })
    const unknownConnect = await auth.connect({ headers: connectHeaders('acc', 'psc_unknown'), partner: 'acme' })

    const disabled = await auth.passcodes.disable(admin, 'acc', passcode.id)
    expect(disabled.status).toBe('disabled')
    expect(disabled.disabledAt).toBeInstanceOf(Date)

    const refused = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(refused).toMatchObject({ ok: false, reason: 'disabled', statusCode: 400, body: INVALID_CREDENTIALS })
    expect(unknownAuth.ok).toBe(false)
    if (!refused.ok && !unknownAuth.ok) expect(JSON.stringify(refused.body)).toBe(JSON.stringify(unknownAuth.body))
    const connected = await auth.connect({ headers: connectHeaders('acc', value), partner: 'acme' })
    expect(connected.statusCode).toBe(400)
    expect(JSON.stringify(connected.body)).toBe(JSON.stringify(unknownConnect.body))
    // A partner that is not whitelisted does not tell a disabled passcode from an unknown one either.
    expect((await auth.connect({ headers: connectHeaders('acc', value), partner: 'nobody' })).statusCode).toBe(400)

    const enabled = await auth.passcodes.enable(admin, 'acc', passcode.id)
    expect(enabled.status).toBe('active')
    expect(enabled.disabledAt).toBeNull()
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: true })
    expect((await auth.connect({ headers: connectHeaders('acc', value), partner: 'acme' })).statusCode).toBe(200)
  })

  it('keeps the value, name, binding, expiry and description, and lists it as disabled', async () => {
    const { auth } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', {
      name: 'Acme',
      expiry: 90,
      partners: ['acme'],
      description: 'Nightly export',
    })
    await auth.passcodes.disable(admin, 'acc', passcode.id)
    const [listed] = await auth.passcodes.list(member, 'acc')
    expect(listed).toMatchObject({
      id: passcode.id,
      name: 'Acme',
      hint: passcode.hint,
      expiry: 90,
      expiresAt: passcode.expiresAt,
      partners: ['acme'],
      description: 'Nightly export',
      status: 'disabled',
    })
    await auth.passcodes.enable(admin, 'acc', passcode.id)
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(outcome).toMatchObject({ ok: true, principal: { passcodeId: passcode.id, passcodeName: 'Acme', partners: ['acme'] } })
  })

  it('is refused from a warm verification cache at once, on this instance and on another sharing the store', async () => {
    const store = memoryStore()
    const first = setup({ store })
    const second = setup({ store })
    const { passcode, value } = await first.auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    for (const { auth } of [first, second]) expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)

    await first.auth.passcodes.disable(admin, 'acc', passcode.id)
    for (const { auth } of [first, second]) {
      expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, reason: 'disabled', statusCode: 400 })
    }
    // The refusal each instance now remembers is dropped by the enable, everywhere.
    await second.auth.passcodes.enable(admin, 'acc', passcode.id)
    for (const { auth } of [first, second]) expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
  })

  it('answers 400, not the 401 of an expired passcode, when it is disabled and expired', async () => {
    const { auth, clock } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Short', expiry: 1 })
    await auth.passcodes.disable(admin, 'acc', passcode.id)
    clock.advance(2 * DAY_MS)
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, reason: 'disabled', statusCode: 400 })
    expect((await auth.passcodes.list(admin, 'acc'))[0]?.status).toBe('disabled')
    // Still expired for the rules: neither an edit of its expiry nor a rotation brings it back.
    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { expiry: 30 })).rejects.toBeInstanceOf(ReactivationRefusedError)
    await expect(auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 0 })).rejects.toMatchObject({ code: 'ERR_ROTATION_REFUSED' })
    const enabled = await auth.passcodes.enable(admin, 'acc', passcode.id)
    expect(enabled.status).toBe('expired')
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, statusCode: 401 })
  })

  it('refuses the value a rotation replaced during its overlap, and a new value, while disabled', async () => {
    const { auth } = setup()
    const { passcode, value: old } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    const { value: next } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 60 })
    await auth.passcodes.disable(admin, 'acc', passcode.id)
    const { value: newest, passcode: rotated } = await auth.passcodes.rotate(admin, 'acc', passcode.id, { overlapMinutes: 60 })
    expect(rotated.status).toBe('disabled')
    for (const value of [old, next, newest]) {
      expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
    }
    await auth.passcodes.enable(admin, 'acc', passcode.id)
    expect((await auth.authenticate({ accountId: 'acc', passcode: newest })).ok).toBe(true)
    expect((await auth.authenticate({ accountId: 'acc', passcode: next })).ok).toBe(true)
  })

  it('is idempotent: disabling a disabled passcode (or enabling an enabled one) succeeds and changes nothing', async () => {
    const { auth, clock, events } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    const enabledAgain = await auth.passcodes.enable(admin, 'acc', passcode.id)
    expect(enabledAgain).toEqual(passcode)
    const first = await auth.passcodes.disable(admin, 'acc', passcode.id)
    clock.advance(60_000)
    const second = await auth.passcodes.disable(admin, 'acc', passcode.id)
    expect(second.disabledAt).toEqual(first.disabledAt)
    expect(second.updatedAt).toEqual(first.updatedAt)
    const types = events.map((event) => event.type).filter((type) => type.startsWith('passcode.'))
    expect(types).toEqual(['passcode.created', 'passcode.disabled'])
  })

  it('emits passcode.disabled and passcode.enabled with who, which passcode, its name and hint, never the value', async () => {
    const { auth, events } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, description: 'secret-looking words' })
    await auth.passcodes.disable(settingsWriter, 'acc', passcode.id)
    await auth.passcodes.enable(admin, 'acc', passcode.id)
    const changes = events.filter((event) => event.type === 'passcode.disabled' || event.type === 'passcode.enabled')
    expect(changes).toEqual([
      expect.objectContaining({
        type: 'passcode.disabled',
        accountId: 'acc',
        actorUserId: 'u_writer',
        passcodeId: passcode.id,
        name: 'Acme',
        hint: passcode.hint,
      }),
      expect.objectContaining({
        type: 'passcode.enabled',
        accountId: 'acc',
        actorUserId: 'u_admin',
        passcodeId: passcode.id,
        name: 'Acme',
        hint: passcode.hint,
      }),
    ])
    expect(JSON.stringify(events)).not.toContain(value)
    expect(JSON.stringify(changes)).not.toContain('secret-looking words')
  })

  it('may be done by whoever may edit the passcode, and finds no passcode of another account', async () => {
    const { auth } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    await expect(auth.passcodes.disable(member, 'acc', passcode.id)).rejects.toBeInstanceOf(ForbiddenError)
    await expect(auth.passcodes.enable(member, 'acc', passcode.id)).rejects.toBeInstanceOf(ForbiddenError)
    await expect(auth.passcodes.disable(settingsWriter, 'acc', passcode.id)).resolves.toMatchObject({ status: 'disabled' })
    await expect(auth.passcodes.enable(settingsWriter, 'acc', passcode.id)).resolves.toMatchObject({ status: 'active' })
    await expect(auth.passcodes.disable(admin, 'other', passcode.id)).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.passcodes.enable(admin, 'acc', 'pc_missing')).rejects.toBeInstanceOf(NotFoundError)
    await expect(auth.passcodes.disable(admin, 'acc', '')).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'passcodeId' })
  })

  it('counts toward the cap while disabled', async () => {
    const { auth } = setup({ limits: { maxAccountPasscodes: 2 } })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 90 })
    await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 90 })
    await auth.passcodes.disable(admin, 'acc', passcode.id)
    await expect(auth.passcodes.create(admin, 'acc', { name: 'C', expiry: 90 })).rejects.toBeInstanceOf(CapReachedError)
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    await expect(auth.passcodes.create(admin, 'acc', { name: 'C', expiry: 90 })).resolves.toBeDefined()
  })

  it('gets no email while disabled, and the due one once enabled', async () => {
    const mailer = scriptedMailer()
    const { auth } = setup({ mailer, recipients: everyone })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 10 })
    await auth.passcodes.disable(admin, 'acc', passcode.id)
    const quiet = await auth.notifyExpirations()
    expect(quiet.sent).toEqual([])
    expect(quiet.skipped).toEqual([])
    expect(mailer.delivered).toEqual([])
    await auth.passcodes.enable(admin, 'acc', passcode.id)
    const report = await auth.notifyExpirations()
    expect(report.sent).toMatchObject([{ passcodeId: passcode.id, kind: 'expiring_soon' }])
  })

  it('skips a notification claimed before the passcode was disabled', async () => {
    const mailer = scriptedMailer()
    const inner = memoryStore()
    let disableBeforeSend: (() => Promise<unknown>) | undefined
    const store: PasscodeStore = {
      ...inner,
      async claimNotifications(request) {
        const claims = await inner.claimNotifications(request)
        await disableBeforeSend?.()
        disableBeforeSend = undefined
        return claims
      },
    }
    const { auth } = setup({ store, mailer, recipients: everyone })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 10 })
    disableBeforeSend = () => auth.passcodes.disable(admin, 'acc', passcode.id)
    const report = await auth.notifyExpirations()
    expect(report.sent).toEqual([])
    expect(report.skipped).toMatchObject([{ passcodeId: passcode.id, reason: 'passcode_disabled' }])
    expect(mailer.delivered).toEqual([])
  })

  it('refuses to pretend with a store that drops the disabled state', async () => {
    const inner = memoryStore()
    const store: PasscodeStore = {
      ...inner,
      updateAccountPasscode: (accountId, passcodeId, { disabledAt: _dropped, ...patch }, audit) =>
        inner.updateAccountPasscode(accountId, passcodeId, patch, audit),
    }
    const auth = createPasscodeAuth({ store, partners: ['acme'], clock: manualClock() })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    await expect(auth.passcodes.disable(admin, 'acc', passcode.id)).rejects.toBeInstanceOf(ConfigurationError)
  })
})
