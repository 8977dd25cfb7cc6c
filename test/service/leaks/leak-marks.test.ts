import { describe, expect, it } from 'vitest'
import type { PasscodeStore } from '../../../src/index'
import { memoryMailer } from '../../../src/memory'
import { admin, setup } from '../../helpers/service'
import { scriptedMailer } from '../notify-fixtures'

const recipients = (accountId: string) => [`admins+${accountId}@example.com`]
const url = 'https://github.com/o/r/blob/main/.env'

async function fixture(options: Parameters<typeof setup>[0] = {}) {
  const mailer = memoryMailer()
  const context = setup({ mailer, recipients, ...options })
  const live = await context.auth.passcodes.create(admin, 'acc', { name: 'Acme export', expiry: 90 })
  return { ...context, mailer, live }
}

/** The account's audit trail, oldest first. */
const trail = async (store: PasscodeStore) => store.audit!.records('acc', { limit: 100 })
const auditActions = async (store: PasscodeStore) => (await trail(store)).map((record) => record.action)

describe('SPEC 5.42 the leak mark, its audit record and its email', () => {
  it('writes one passcode.leak_reported record (where it was found and what was done, never the value), with the disable', async () => {
    const { auth, live, store } = await fixture()
    await auth.leaks.report([{ token: live.value, url, source: 'content' }], { source: 'github' })
    const records = await trail(store)
    expect(records.map((record) => record.action)).toEqual(['passcode.created', 'passcode.leak_reported', 'notification.sent'])
    const leak = records[1]!
    expect(leak).toMatchObject({
      actor: { type: 'system' },
      target: { type: 'passcode', id: live.passcode.id, name: 'Acme export' },
      changes: {
        source: { before: null, after: 'content' },
        url: { before: null, after: url },
        action: { before: null, after: 'disabled' },
        disabled: { before: false, after: true },
      },
    })
    expect(records[2]).toMatchObject({ actor: { type: 'system' }, changes: { notification: { before: null, after: 'leak_reported' } } })
    expect(JSON.stringify(records)).not.toContain(live.value)

    // A replay writes nothing more.
    await auth.leaks.report([live.value], { source: 'github' })
    expect(await auditActions(store)).toHaveLength(3)
  })

  it("records a delete ('revoke') and a user passcode's revoke as passcode.leak_reported too", async () => {
    const { auth, live, store } = await fixture({ leaks: { action: 'revoke' } })
    await auth.leaks.report([live.value], { source: 'gitleaks' })
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'finite', days: 30 } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc')
    await auth.leaks.report([value], { source: 'chat' })
    const records = await trail(store)
    const leaks = records.filter((record) => record.action === 'passcode.leak_reported')
    expect(leaks).toMatchObject([
      { target: { type: 'passcode', id: live.passcode.id }, changes: { action: { after: 'deleted' }, source: { after: 'gitleaks' } } },
      { target: { type: 'user', id: 'u_1' }, changes: { action: { after: 'revoked' }, source: { after: 'chat' } } },
    ])
    expect(records.map((record) => record.action)).not.toContain('passcode.deleted')
    expect(records.map((record) => record.action)).not.toContain('user_passcode.revoked')
  })

  it('shows the mark on the view until an admin enables or rotates; an edit keeps it; a new report after that acts again', async () => {
    const { auth, clock, live, mailer } = await fixture()
    const reportedAt = new Date(clock.ms)
    await auth.leaks.report([{ token: live.value, url, source: 'content' }], { source: 'github' })
    const [marked] = await auth.passcodes.list(admin, 'acc')
    expect(marked).toMatchObject({ status: 'disabled', leak: { reportedAt, url, source: 'content' } })
    expect((await auth.passcodes.update(admin, 'acc', live.passcode.id, { description: 'still leaked' })).leak).toEqual({
      reportedAt,
      url,
      source: 'content',
    })

    const enabled = await auth.passcodes.enable(admin, 'acc', live.passcode.id)
    expect(enabled.leak).toBeNull()
    expect((await auth.passcodes.list(admin, 'acc'))[0]!.leak).toBeNull()

    // Enabled again with a public value: the next report disables, marks and mails again.
    clock.advance(1_000)
    await auth.leaks.report([live.value], { source: 'github' })
    expect((await auth.passcodes.list(admin, 'acc'))[0]).toMatchObject({ status: 'disabled', leak: { source: 'github', url: null } })
    expect(mailer.messages).toHaveLength(2)

    const rotated = await auth.passcodes.rotate(admin, 'acc', live.passcode.id, { overlapMinutes: 0 })
    expect(rotated.passcode.leak).toBeNull()
    expect((await auth.passcodes.list(admin, 'acc'))[0]!.leak).toBeNull()
    // The leaked value is gone; the new one is not leaked.
    expect(await auth.leaks.report([live.value], { source: 'github' })).toEqual([{ token: live.value, label: 'false_positive' }])
  })

  it('marks a passcode an admin had disabled before the leak, keeping its disable, and mails once', async () => {
    const { auth, live, mailer, events, store } = await fixture()
    const disabled = await auth.passcodes.disable(admin, 'acc', live.passcode.id)
    expect(await auth.leaks.report([live.value], { source: 'github' })).toEqual([{ token: live.value, label: 'true_positive' }])
    const [view] = await auth.passcodes.list(admin, 'acc')
    expect(view).toMatchObject({ disabledAt: disabled.disabledAt, leak: { source: 'github' } })
    expect(mailer.messages).toHaveLength(1)
    expect(events.filter((event) => event.type === 'passcode.disabled')).toHaveLength(1)
    const [, leak] = (await trail(store)).filter((record) => record.action !== 'notification.sent').slice(1)
    expect(leak?.changes).not.toHaveProperty('disabled')
  })

  it('lets one of two concurrent reports of the same token act: one change, one email, one record', async () => {
    const { auth, live, mailer, events, store } = await fixture()
    const second = setup({ store, mailer, recipients })
    const answers = await Promise.all([
      auth.leaks.report([live.value], { source: 'github' }),
      second.auth.leaks.report([live.value], { source: 'github' }),
      auth.leaks.report([live.value], { source: 'gitleaks' }),
    ])
    expect(answers.flat().map((answer) => answer.label)).toEqual(['true_positive', 'true_positive', 'true_positive'])
    expect(mailer.messages).toHaveLength(1)
    expect([...events, ...second.events].filter((event) => event.type === 'passcode.leaked')).toHaveLength(1)
    expect((await auditActions(store)).filter((action) => action === 'passcode.leak_reported')).toHaveLength(1)
  })

  it("retries a failed email on the notifier's pass, once, and says on the event and the mark that it had not gone", async () => {
    const mailer = scriptedMailer((call) => call === 1)
    const { auth, live, events, store } = await fixture({ mailer })
    await auth.leaks.report([live.value], { source: 'github' })
    expect(events.find((event) => event.type === 'passcode.leaked')).toMatchObject({ notified: false })
    expect(mailer.delivered).toHaveLength(0)
    expect(await store.listLeakMarks!('acc')).toMatchObject([{ notifiedAt: null }])

    const report = await auth.notifyExpirations()
    expect(report.leaks).toMatchObject([{ accountId: 'acc', kind: 'account', key: live.passcode.id, sent: true }])
    expect(mailer.delivered).toHaveLength(1)
    expect(mailer.delivered[0]!.text).toContain('github')
    expect(JSON.stringify(mailer.delivered)).not.toContain(live.value)
    expect((await store.listLeakMarks!('acc'))[0]!.notifiedAt).not.toBeNull()

    const again = await auth.notifyExpirations()
    expect(again.leaks).toBeUndefined()
    expect(mailer.delivered).toHaveLength(1)
    expect((await auditActions(store)).filter((action) => action === 'notification.sent')).toHaveLength(1)
  })

  it('keeps retrying while the mailer fails, and the email of a deleted passcode still goes', async () => {
    const mailer = scriptedMailer((call) => call <= 3)
    const { auth, live } = await fixture({ mailer, leaks: { action: 'revoke' } })
    await auth.leaks.report([live.value], { source: 'github' })
    expect((await auth.notifyExpirations()).leaks).toMatchObject([{ sent: false }])
    expect((await auth.notifyExpirations()).leaks).toMatchObject([{ sent: false }])
    expect((await auth.notifyExpirations()).leaks).toMatchObject([{ sent: true }])
    expect(mailer.delivered).toHaveLength(1)
    expect(mailer.delivered[0]!.text).toContain('deleted')
  })

  it('does not start a retried email on a nearly spent lease: the pass gives it back and the next one sends it, once', async () => {
    const mailer = scriptedMailer((call) => call === 1)
    const slow: { next?: () => void } = {}
    const { auth, live, clock } = await fixture({
      mailer,
      // Resolving the recipients is where the time goes, as it may on a host's directory.
      recipients: (accountId: string) => {
        slow.next?.()
        slow.next = undefined
        return recipients(accountId)
      },
      notifier: { leaseMs: 60_000, sendTimeoutMs: 10_000 },
    })
    await auth.leaks.report([live.value], { source: 'github' })
    expect(mailer.calls).toBe(1)

    // 55 s of a 60 s lease gone before the send, which may take 10 s: another runner could take the claim over meanwhile.
    slow.next = () => clock.advance(55_000)
    const report = await auth.notifyExpirations()
    expect(report.leaks).toMatchObject([{ key: live.passcode.id, sent: false, reason: 'lease_too_short' }])
    expect(mailer.calls).toBe(1)

    expect((await auth.notifyExpirations()).leaks).toMatchObject([{ key: live.passcode.id, sent: true, reason: null }])
    expect(mailer.delivered).toHaveLength(1)
    expect((await auth.notifyExpirations()).leaks).toBeUndefined()
  })
})
