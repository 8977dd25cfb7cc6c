import { describe, expect, it } from 'vitest'
import { generatePasscode } from '../../../src/index'
import { memoryMailer } from '../../../src/memory'
import { DAY_MS } from '../../../src/core/time'
import { LEAKED_PASSCODE_ADVICE } from '../../../src/core/labels'
import { admin, setup } from '../../helpers/service'

const recipients = (accountId: string) => [`admins+${accountId}@example.com`]

/** A value with a valid prefix and length whose checksum fails: a look-alike. */
function lookAlike(value: string): string {
  return value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A')
}

async function fixture(options: Parameters<typeof setup>[0] = {}) {
  const mailer = memoryMailer()
  const context = setup({ mailer, recipients, ...options })
  const { auth } = context
  const live = await auth.passcodes.create(admin, 'acc', { name: 'Acme export', expiry: 90 })
  const other = await auth.passcodes.create(admin, 'acc', { name: 'Other', expiry: 90 })
  await auth.passcodes.delete(admin, 'acc', other.passcode.id)
  return { ...context, mailer, live, deletedValue: other.value }
}

describe('SPEC 5.42 auth.leaks.report', () => {
  it('labels a live value true_positive, disables it, mails the admins once without the value and emits passcode.leaked', async () => {
    const { auth, mailer, events, live, deletedValue } = await fixture()
    const foreign = 'ghp_' + 'x'.repeat(36)
    const answer = await auth.leaks.report(
      [{ token: live.value, url: 'https://github.com/o/r/blob/main/.env', source: 'content' }, deletedValue, foreign, lookAlike(live.value)],
      { source: 'github' },
    )
    expect(answer.map((entry) => entry.label)).toEqual(['true_positive', 'false_positive', 'false_positive', 'false_positive'])

    const refused = await auth.authenticate({ accountId: 'acc', passcode: live.value })
    expect(refused).toMatchObject({ ok: false, reason: 'disabled', statusCode: 400 })
    const [view] = await auth.passcodes.list(admin, 'acc')
    expect(view?.status).toBe('disabled')

    expect(mailer.messages).toHaveLength(1)
    const [message] = mailer.messages
    expect(message!.to).toEqual(['admins+acc@example.com'])
    expect(message!.subject).toContain('Acme export')
    expect(message!.text).toContain(live.passcode.hint)
    expect(message!.text).toContain('https://github.com/o/r/blob/main/.env')
    expect(message!.text).toContain('content')
    expect(message!.text).toContain('disabled')
    expect(message!.text).toContain(`What to do, in Settings > Passcodes: ${LEAKED_PASSCODE_ADVICE}`)
    expect(JSON.stringify(mailer.messages)).not.toContain(live.value)

    const leaked = events.filter((event) => event.type === 'passcode.leaked')
    expect(leaked).toEqual([
      expect.objectContaining({
        accountId: 'acc',
        kind: 'account',
        passcodeId: live.passcode.id,
        action: 'disabled',
        notified: true,
        source: 'content',
      }),
    ])
    expect(events.find((event) => event.type === 'passcode.disabled')).toMatchObject({ actorUserId: 'system:leak-report' })
    expect(JSON.stringify(events)).not.toContain(live.value)
  })

  it('changes nothing and sends nothing on a second report of the same token (by state, also from another instance)', async () => {
    const { auth, mailer, events, live, store, clock } = await fixture()
    await auth.leaks.report([live.value], { source: 'github' })
    const before = { mails: mailer.messages.length, events: events.length, record: await store.getAccountPasscode('acc', live.passcode.id) }

    clock.advance(60_000)
    expect(await auth.leaks.report([live.value, live.value], { source: 'github' })).toEqual([
      { token: live.value, label: 'true_positive' },
      { token: live.value, label: 'true_positive' },
    ])
    // A second service on the same store has no memory of the first report.
    const secondMailer = memoryMailer()
    const second = setup({ store, mailer: secondMailer, recipients })
    await second.auth.leaks.report([live.value], { source: 'github' })

    expect(mailer.messages.length + secondMailer.messages.length).toBe(before.mails)
    expect(events.length).toBe(before.events)
    expect(second.events).toEqual([])
    expect(await store.getAccountPasscode('acc', live.passcode.id)).toEqual(before.record)
  })

  it("deletes the passcode with action 'revoke' (option or per report); a replay then finds nothing", async () => {
    const { auth, mailer, live } = await fixture({ leaks: { action: 'revoke' } })
    expect(await auth.leaks.report([live.value], { source: 'gitleaks' })).toEqual([{ token: live.value, label: 'true_positive' }])
    expect(await auth.passcodes.list(admin, 'acc')).toEqual([])
    expect(mailer.messages[0]!.text).toContain('deleted')
    expect(await auth.leaks.report([live.value], { source: 'gitleaks' })).toEqual([{ token: live.value, label: 'false_positive' }])
    expect(mailer.messages).toHaveLength(1)

    const perReport = await fixture()
    await perReport.auth.leaks.report([perReport.live.value], { source: 'support', action: 'revoke' })
    expect(await perReport.auth.passcodes.list(admin, 'acc')).toEqual([])
  })

  it('revokes a leaked user passcode (user passcodes have no disabled state)', async () => {
    const { auth, mailer, events } = await fixture()
    const user = { userId: 'u_1', role: 'member' } as const
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'finite', days: 30 } })
    const { value } = await auth.userPasscodes.reveal(user, 'acc')
    expect(await auth.leaks.report([value], { source: 'chat' })).toEqual([{ token: value, label: 'true_positive' }])
    const [view] = await auth.userPasscodes.list(admin, 'acc')
    expect(view?.status).toBe('revoked')
    expect(mailer.messages).toHaveLength(1)
    expect(mailer.messages[0]!.text).toContain('u_1')
    expect(JSON.stringify(mailer.messages)).not.toContain(value)
    expect(events.filter((event) => event.type === 'passcode.leaked')).toEqual([
      expect.objectContaining({ kind: 'user', userId: 'u_1', action: 'revoked' }),
    ])
    // A replay: the value was live when found, and the report revoked it; as for an account passcode, it stays true_positive and acts on nothing.
    const record = await auth.userPasscodes.get(admin, 'acc', 'u_1')
    expect(await auth.leaks.report([value, value], { source: 'chat' })).toEqual([
      { token: value, label: 'true_positive' },
      { token: value, label: 'true_positive' },
    ])
    expect(mailer.messages).toHaveLength(1)
    expect(events.filter((event) => event.type === 'passcode.leaked')).toHaveLength(1)
    expect(await auth.userPasscodes.get(admin, 'acc', 'u_1')).toEqual(record)
    // Once an admin grants the user a new passcode, the old value is gone: false_positive.
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'finite', days: 30 } })
    expect(await auth.leaks.report([value], { source: 'chat' })).toEqual([{ token: value, label: 'false_positive' }])
  })

  it('labels a user passcode an admin revoked (no leak report) false_positive: it is not live', async () => {
    const { auth, mailer } = await fixture()
    await auth.userPasscodes.grant(admin, 'acc', 'u_2', { validity: { type: 'infinite' } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_2', role: 'member' }, 'acc')
    await auth.userPasscodes.revoke(admin, 'acc', 'u_2')
    expect(await auth.leaks.report([value], { source: 'chat' })).toEqual([{ token: value, label: 'false_positive' }])
    expect(mailer.messages).toHaveLength(0)
  })

  it('answers false_positive for an expired value (not live without allowReactivation), and a look-alike costs no store read', async () => {
    const { auth, live, clock, store } = await fixture()
    clock.advance(91 * DAY_MS)
    expect(await auth.leaks.report([live.value], { source: 'github' })).toEqual([{ token: live.value, label: 'false_positive' }])

    let reads = 0
    const counting = new Proxy(store, {
      get: (target, key, receiver) =>
        key === 'findCredentialByHash' ? (...args: [string]) => (reads++, target.findCredentialByHash(...args)) : Reflect.get(target, key, receiver),
    })
    const counted = setup({ store: counting })
    await counted.auth.leaks.report([lookAlike(generatePasscode()), 'not a passcode'], { source: 'github' })
    expect(reads).toBe(0)
    await counted.auth.leaks.report([generatePasscode()], { source: 'github' })
    expect(reads).toBe(1)
  })

  it('acts without a mailer and says so on the event', async () => {
    const { auth, events } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    await auth.leaks.report([value], { source: 'github' })
    expect(events.find((event) => event.type === 'passcode.leaked')).toMatchObject({ notified: false, action: 'disabled' })
  })

  it('refuses tokens that are not an array of values, and a missing source, before any read', async () => {
    const { auth } = setup()
    await expect(auth.leaks.report('psc_x' as unknown as string[], { source: 'x' })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'tokens',
    })
    await expect(auth.leaks.report([1 as unknown as string], { source: 'x' })).rejects.toMatchObject({ field: 'tokens' })
    await expect(auth.leaks.report([], undefined as unknown as { source: string })).rejects.toMatchObject({ field: 'source' })
  })
})
