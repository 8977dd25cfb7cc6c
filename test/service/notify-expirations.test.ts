import { describe, expect, it } from 'vitest'
import { ConfigurationError, type AuditEvent } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryMailer } from '../../src/memory'
import { admin, setup } from '../helpers/service'
import { everyOtherCall, everyone, reportKey, scriptedMailer, sentKeys, tally } from './notify-fixtures'

const WINDOW = 30 * DAY_MS

describe('auth.notifyExpirations: configuration', () => {
  it('throws a ConfigurationError without a mailer and reports notifier.failed', async () => {
    const { auth, events } = setup({ recipients: everyone })
    await auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 10 })
    await expect(auth.notifyExpirations()).rejects.toThrow(ConfigurationError)
    await expect(auth.notifyExpirations()).rejects.toThrow(/mailer/)
    expect(events.filter((event) => event.type === 'notifier.failed')).toHaveLength(2)
  })

  it('throws a ConfigurationError without recipients, and claims nothing meanwhile', async () => {
    const mailer = memoryMailer()
    const shared = setup({ mailer })
    await shared.auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 10 })
    await expect(shared.auth.notifyExpirations()).rejects.toThrow(/recipients/)
    // Another service over the same store sends at once: nothing was left claimed.
    const { auth } = setup({ store: shared.store, mailer, recipients: everyone })
    const report = await auth.notifyExpirations()
    expect(report.sent).toHaveLength(1)
  })

  it('rejects notifier options whose lease is not longer than the send timeout', () => {
    expect(() => setup({ notifier: { leaseMs: 5_000, sendTimeoutMs: 5_000 } })).toThrow(/notifier\.leaseMs/)
    expect(() => setup({ notifier: { batchSize: 0 } })).toThrow(/notifier\.batchSize/)
    expect(() => setup({ recipients: ['ops@example.com'] as never })).toThrow(/recipients/)
  })
})

describe('SPEC 5.14 auth.notifyExpirations: when (SPEC 5.7) with an injected clock', () => {
  async function passcodeExpiringAt(remainingMs: number) {
    const mailer = memoryMailer()
    const context = setup({ mailer, recipients: everyone })
    const { passcode } = await context.auth.passcodes.create(admin, 'acc', { name: 'Edge', expiry: 40 })
    context.clock.set(passcode.expiresAt!.getTime() - remainingMs)
    return { ...context, mailer, passcode }
  }

  it('sends nothing at 30 days + 1 ms left', async () => {
    const { auth, mailer } = await passcodeExpiringAt(WINDOW + 1)
    const report = await auth.notifyExpirations()
    expect(report.sent).toEqual([])
    expect(mailer.messages).toEqual([])
  })

  it('sends "expiring soon" at exactly 30 days left', async () => {
    const { auth, passcode } = await passcodeExpiringAt(WINDOW)
    const report = await auth.notifyExpirations()
    expect(report.sent.map((line) => [line.passcodeId, line.kind])).toEqual([[passcode.id, 'expiring_soon']])
  })

  it('sends "expiring soon" at 30 days − 1 ms left, then "expired" only at the expiry instant', async () => {
    const { auth, clock, passcode } = await passcodeExpiringAt(WINDOW - 1)
    expect((await auth.notifyExpirations()).sent.map((line) => line.kind)).toEqual(['expiring_soon'])
    clock.set(passcode.expiresAt!.getTime() - 1)
    expect((await auth.notifyExpirations()).sent).toEqual([])
    clock.set(passcode.expiresAt!.getTime())
    const atExpiry = await auth.notifyExpirations()
    expect(atExpiry.sent.map((line) => line.kind)).toEqual(['expired'])
    expect(atExpiry.sent[0]?.expiresAt).toEqual(passcode.expiresAt)
    clock.advance(400 * DAY_MS)
    expect((await auth.notifyExpirations()).sent).toEqual([])
  })

  it('sends "expiring soon" on the next pass for a passcode created with 10 days left', async () => {
    const mailer = memoryMailer()
    const { auth } = setup({ mailer, recipients: everyone })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Ten days', expiry: 10 })
    const report = await auth.notifyExpirations()
    expect(report.sent).toMatchObject([{ passcodeId: passcode.id, kind: 'expiring_soon', to: ['admin@acc.example'], recorded: true }])
    expect((await auth.notifyExpirations()).sent).toEqual([])
    expect(mailer.messages).toHaveLength(1)
  })

  it('sends only "expired" for a passcode first seen after its expiry', async () => {
    const mailer = memoryMailer()
    const { auth, clock } = setup({ mailer, recipients: everyone })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Missed', expiry: 5 })
    clock.advance(6 * DAY_MS)
    const first = await auth.notifyExpirations()
    expect(first.sent.map((line) => [line.passcodeId, line.kind])).toEqual([[passcode.id, 'expired']])
    expect((await auth.notifyExpirations()).sent).toEqual([])
    expect(mailer.messages).toHaveLength(1)
  })

  it('never notifies for a forever passcode', async () => {
    const mailer = memoryMailer()
    const { auth, clock } = setup({ mailer, recipients: everyone })
    await auth.passcodes.create(admin, 'acc', { name: 'Forever', expiry: 'forever' })
    for (const step of [0, 1, 3650, 36_500]) {
      clock.advance(step * DAY_MS)
      expect((await auth.notifyExpirations()).sent).toEqual([])
    }
    expect(mailer.messages).toEqual([])
  })

  it('notifies only account passcodes, never user passcodes (SPEC 2)', async () => {
    const mailer = memoryMailer()
    const { auth, clock } = setup({ mailer, recipients: everyone })
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 5 } })
    for (const days of [0, 4, 6]) {
      clock.advance(days * DAY_MS)
      expect((await auth.notifyExpirations()).sent).toEqual([])
    }
    expect(mailer.messages).toEqual([])
  })

  it('never notifies for a deleted passcode', async () => {
    const mailer = memoryMailer()
    const { auth, clock } = setup({ mailer, recipients: everyone })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Gone', expiry: 10 })
    await auth.passcodes.delete(admin, 'acc', passcode.id)
    clock.advance(11 * DAY_MS)
    expect((await auth.notifyExpirations()).sent).toEqual([])
    expect(mailer.messages).toEqual([])
  })
})

describe('auth.notifyExpirations: edits re-arm (SPEC 5.8)', () => {
  it('sends new "expiring soon" and "expired" emails for every new expiry, none for a rename', async () => {
    const mailer = memoryMailer()
    const { auth, clock } = setup({ mailer, recipients: everyone, allowReactivation: true })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Moving', expiry: 10 })
    expect((await auth.notifyExpirations()).sent.map((line) => line.kind)).toEqual(['expiring_soon'])

    await auth.passcodes.update(admin, 'acc', passcode.id, { name: 'Renamed' })
    expect((await auth.notifyExpirations()).sent).toEqual([])

    clock.advance(DAY_MS)
    const extended = await auth.passcodes.update(admin, 'acc', passcode.id, { expiry: 20 })
    const rearmed = await auth.notifyExpirations()
    expect(rearmed.sent).toMatchObject([{ kind: 'expiring_soon', name: 'Renamed', expiresAt: extended.expiresAt }])

    clock.set(extended.expiresAt!.getTime())
    expect((await auth.notifyExpirations()).sent.map((line) => line.kind)).toEqual(['expired'])

    // Reactivated far out: outside the window, nothing; inside it and at expiry, one each.
    const revived = await auth.passcodes.update(admin, 'acc', passcode.id, { expiry: 90 })
    expect((await auth.notifyExpirations()).sent).toEqual([])
    clock.set(revived.expiresAt!.getTime() - WINDOW)
    expect((await auth.notifyExpirations()).sent.map((line) => line.kind)).toEqual(['expiring_soon'])
    clock.set(revived.expiresAt!.getTime())
    expect((await auth.notifyExpirations()).sent.map((line) => line.kind)).toEqual(['expired'])

    const subjects = mailer.messages.map((message) => message.subject)
    expect(subjects).toHaveLength(5)
    expect(new Set(subjects.map((subject, index) => `${subject}#${mailer.messages[index]!.text}`)).size).toBe(5)
  })
})

describe('auth.notifyExpirations: at least once, never twice', () => {
  it('with a mailer failing every other call, repeated passes deliver every due email exactly once', async () => {
    const mailer = scriptedMailer(everyOtherCall)
    const { auth, clock } = setup({ mailer, recipients: everyone, notifier: { batchSize: 3 } })
    const expected: string[] = []
    for (let index = 0; index < 12; index += 1) {
      const { passcode } = await auth.passcodes.create(admin, `acc${index % 3}`, { name: `P${index}`, expiry: 5 + index })
      expected.push(`${passcode.id}|expiring_soon|${passcode.expiresAt!.toISOString()}`)
    }
    await auth.passcodes.create(admin, 'acc0', { name: 'Far', expiry: 365 })

    const reports = []
    for (let pass = 0; pass < 20 && sentKeys(reports).length < expected.length; pass += 1) {
      reports.push(await auth.notifyExpirations())
    }
    expect(reports.length).toBeGreaterThan(1)
    expect(reports.flatMap((report) => report.failed).every((line) => line.reason === 'ERR_MAILER_FAILED')).toBe(true)
    expect(tally(sentKeys(reports))).toEqual(new Map(expected.map((key) => [key, 1])))
    expect(mailer.delivered).toHaveLength(expected.length)
    // Every failure was retried: as many mailer calls as successes plus failures.
    const failures = reports.reduce((sum, report) => sum + report.failed.length, 0)
    expect(mailer.calls).toBe(expected.length + failures)
    expect(failures).toBeGreaterThan(0)
    expect((await auth.notifyExpirations()).sent).toEqual([])

    // Past every expiry: each passcode gets its "expired" email, once, despite the failures.
    clock.advance(20 * DAY_MS)
    const later = []
    for (let pass = 0; pass < 20; pass += 1) later.push(await auth.notifyExpirations())
    const expiredKeys = sentKeys(later)
    expect(expiredKeys).toHaveLength(12)
    expect(new Set(expiredKeys).size).toBe(12)
    expect(expiredKeys.every((key) => key.includes('|expired|'))).toBe(true)
  })

  it('counts a failure once per pass: a failed claim is retried on the next pass, not in the same one', async () => {
    const mailer = scriptedMailer(() => true)
    const { auth } = setup({ mailer, recipients: everyone, notifier: { batchSize: 1 } })
    await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 3 })
    await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 4 })
    const first = await auth.notifyExpirations()
    expect(first.failed).toHaveLength(2)
    expect(mailer.calls).toBe(2)
    const second = await auth.notifyExpirations()
    expect(second.failed.map(reportKey).sort()).toEqual(first.failed.map(reportKey).sort())
  })

  it('four concurrent notifiers over one memory store send each email exactly once', async () => {
    const base = setup()
    const expected: string[] = []
    for (let index = 0; index < 40; index += 1) {
      const { passcode } = await base.auth.passcodes.create(admin, `acc${index % 5}`, { name: `P${index}`, expiry: 1 + (index % 12) })
      expected.push(`${passcode.id}|expiring_soon|${passcode.expiresAt!.toISOString()}`)
    }
    const runners = [0, 1, 2, 3].map((runner) => {
      const mailer = scriptedMailer(
        (call) => (call + runner) % 3 === 0,
        () => Math.floor(Math.random() * 4),
      )
      return { mailer, ...setup({ store: base.store, mailer, recipients: everyone, notifier: { batchSize: 4 } }) }
    })
    const reports = []
    for (let round = 0; round < 10; round += 1) {
      reports.push(...(await Promise.all(runners.map((runner) => runner.auth.notifyExpirations()))))
    }
    expect(tally(sentKeys(reports))).toEqual(new Map(expected.map((key) => [key, 1])))
    expect(runners.reduce((sum, runner) => sum + runner.mailer.delivered.length, 0)).toBe(expected.length)
    expect(runners.filter((runner) => runner.mailer.delivered.length > 0).length).toBeGreaterThan(1)
  })
})

describe('auth.notifyExpirations: failures and skips', () => {
  it('counts missing recipients as ERR_NO_RECIPIENTS and sends once an address exists', async () => {
    const mailer = memoryMailer()
    const addresses = new Map<string, string[]>([['acc', []]])
    const { auth, events } = setup({ mailer, recipients: async (accountId) => addresses.get(accountId) ?? [] })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Nobody', expiry: 10 })
    const first = await auth.notifyExpirations()
    expect(first.failed).toMatchObject([{ passcodeId: passcode.id, reason: 'ERR_NO_RECIPIENTS' }])
    expect(first.failed[0]?.message).toMatch(/No notification recipients .*"acc"/)
    expect(events.find((event) => event.type === 'notification.failed')).toMatchObject({ reason: 'ERR_NO_RECIPIENTS', passcodeId: passcode.id })
    addresses.set('acc', [' ops@acc.example ', 'ops@acc.example', 'cto@acc.example'])
    const second = await auth.notifyExpirations()
    expect(second.sent).toMatchObject([{ passcodeId: passcode.id, to: ['ops@acc.example', 'cto@acc.example'] }])
    expect(mailer.messages[0]?.to).toEqual(['ops@acc.example', 'cto@acc.example'])
  })

  it('counts a recipients function that throws, hangs or returns junk as ERR_RECIPIENTS_FAILED', async () => {
    for (const recipients of [
      () => {
        throw new Error('directory down: password=hunter2')
      },
      () => new Promise<string[]>(() => {}),
      () => ['not an address'],
      () => ['a@b.example\r\nBcc: victim@example.com'],
      () => 'ops@example.com' as never,
    ]) {
      const { auth } = setup({ mailer: memoryMailer(), recipients, notifier: { sendTimeoutMs: 50 } })
      await auth.passcodes.create(admin, 'acc', { name: 'X', expiry: 10 })
      const report = await auth.notifyExpirations()
      expect(report.failed).toMatchObject([{ reason: 'ERR_RECIPIENTS_FAILED' }])
      expect(report.failed[0]?.message).not.toContain('hunter2')
    }
  })

  it('counts a hanging mailer as ERR_MAILER_TIMEOUT and retries on the next pass', async () => {
    let hang = true
    const delivered: string[] = []
    const mailer = {
      send: async (message: { subject: string }) => {
        if (hang) return new Promise<void>(() => {})
        delivered.push(message.subject)
      },
    }
    const { auth, events } = setup({ mailer, recipients: everyone, notifier: { sendTimeoutMs: 100 } })
    await auth.passcodes.create(admin, 'acc', { name: 'Slow', expiry: 10 })
    const first = await auth.notifyExpirations()
    expect(first.failed).toMatchObject([{ reason: 'ERR_MAILER_TIMEOUT', message: 'The mailer did not finish within 100 ms' }])
    expect(events.some((event) => event.type === 'notification.failed' && event.reason === 'ERR_MAILER_TIMEOUT')).toBe(true)
    hang = false
    expect((await auth.notifyExpirations()).sent).toHaveLength(1)
    expect(delivered).toHaveLength(1)
  })

  it('keeps the text of a non-library mailer error out of the report (it may hold credentials)', async () => {
    const mailer = {
      send: async () => {
        throw new Error('auth failed for user:s3cret-pass')
      },
    }
    const { auth, events } = setup({ mailer, recipients: everyone })
    await auth.passcodes.create(admin, 'acc', { name: 'X', expiry: 10 })
    const report = await auth.notifyExpirations()
    expect(report.failed).toMatchObject([{ reason: 'ERR_MAILER_FAILED', message: 'The mailer failed (Error)' }])
    expect(JSON.stringify(events)).not.toContain('s3cret')
  })

  it('skips a claim whose passcode was edited or deleted during the pass, and a claim with too little lease left', async () => {
    const store: { edit?: () => Promise<unknown> } = {}
    const mailer = scriptedMailer()
    const wrapped = {
      ...mailer,
      send: async (message: Parameters<typeof mailer.send>[0]) => {
        await mailer.send(message)
        await store.edit?.()
        store.edit = undefined
      },
    }
    const { auth, clock } = setup({ mailer: wrapped, recipients: everyone, notifier: { leaseMs: 60_000, sendTimeoutMs: 10_000 } })
    const a = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 10 })
    const b = await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 10 })
    const c = await auth.passcodes.create(admin, 'acc', { name: 'C', expiry: 10 })

    store.edit = () => auth.passcodes.update(admin, 'acc', b.passcode.id, { expiry: 12 })
    const first = await auth.notifyExpirations()
    expect(first.sent.map((line) => line.passcodeId)).toEqual([a.passcode.id, c.passcode.id])
    expect(first.skipped).toMatchObject([{ passcodeId: b.passcode.id, reason: 'expiry_changed' }])
    // The new expiry has its own email.
    const second = await auth.notifyExpirations()
    expect(second.sent).toMatchObject([{ passcodeId: b.passcode.id, kind: 'expiring_soon' }])

    clock.advance(20 * DAY_MS)
    store.edit = () => auth.passcodes.delete(admin, 'acc', b.passcode.id)
    const third = await auth.notifyExpirations()
    expect(third.sent.map((line) => line.passcodeId)).toEqual([a.passcode.id, c.passcode.id])
    expect(third.skipped).toMatchObject([{ passcodeId: b.passcode.id, reason: 'passcode_deleted' }])

    const d = await auth.passcodes.create(admin, 'acc', { name: 'D', expiry: 2 })
    const e = await auth.passcodes.create(admin, 'acc', { name: 'E', expiry: 2 })
    store.edit = async () => clock.advance(55_000)
    const fourth = await auth.notifyExpirations()
    expect(fourth.sent.map((line) => line.passcodeId)).toEqual([d.passcode.id])
    expect(fourth.skipped).toMatchObject([{ passcodeId: e.passcode.id, reason: 'lease_too_short' }])
    expect((await auth.notifyExpirations()).sent.map((line) => line.passcodeId)).toEqual([e.passcode.id])
    expect(tally(mailer.delivered.map((message) => message.subject)).size).toBe(mailer.delivered.length)
  })

  it('emits notification.sent events without secrets', async () => {
    const { auth, events } = setup({ mailer: memoryMailer(), recipients: everyone })
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Evented', expiry: 10 })
    await auth.notifyExpirations()
    const sent = events.filter((event): event is Extract<AuditEvent, { type: 'notification.sent' }> => event.type === 'notification.sent')
    expect(sent).toMatchObject([{ accountId: 'acc', passcodeId: passcode.id, kind: 'expiring_soon', expiresAt: passcode.expiresAt }])
    expect(JSON.stringify(events)).not.toContain(value)
  })
})
