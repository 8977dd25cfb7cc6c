import { describe, expect, it } from 'vitest'
import { ConfigurationError, ForbiddenError, InvalidInputError, type PasscodeStore } from '../../src/index'
import { PolicyViolationError } from '../../src/core/errors'
import { memoryMailer, memoryStore } from '../../src/memory'
import { admin, member, setup } from '../helpers/service'
import { scriptedMailer } from './notify-fixtures'
import { recordingSender } from './webhook-fixtures'

const recipients = (accountId: string) => [`admins+${accountId}@example.com`]
const STRICT = { maxLifetimeDays: 90, requireExpiry: true, requireDescription: true }

/** The account's audit trail, oldest first. */
const trail = async (store: PasscodeStore, accountId = 'acc') => store.audit!.records(accountId, { limit: 100 })
const actions = async (store: PasscodeStore, accountId = 'acc') => (await trail(store, accountId)).map((record) => record.action)

/** What a refused call wrote: nothing, so the store's passcodes, user passcodes and trail are as before. */
async function snapshot(store: PasscodeStore) {
  return { passcodes: await store.listAccountPasscodes('acc'), users: await store.listUserPasscodes('acc'), trail: await trail(store) }
}

describe('SPEC 5.52 account policy: refusals that name the rule', () => {
  it('refuses a create that breaks each rule, naming the field and the rule, and writes nothing', async () => {
    const { auth, store } = setup()
    await auth.accounts.setPolicy(admin, 'acc', STRICT)
    const before = await snapshot(store)
    const cases = [
      [{ name: 'Forever', expiry: 'forever', description: 'x' }, 'expiry', 'requireExpiry'],
      [{ name: 'Long', expiry: 91, description: 'x' }, 'expiry', 'maxLifetimeDays'],
      [{ name: 'Bare', expiry: 90 }, 'description', 'requireDescription'],
    ] as const
    for (const [input, field, rule] of cases) {
      const create = auth.passcodes.create(admin, 'acc', input)
      await expect(create).rejects.toBeInstanceOf(InvalidInputError)
      await expect(create).rejects.toBeInstanceOf(PolicyViolationError)
      await expect(create).rejects.toMatchObject({ name: 'PolicyViolationError', field, rule, message: expect.stringContaining(rule) })
    }
    expect(await snapshot(store)).toEqual(before)
    const made = await auth.passcodes.create(admin, 'acc', { name: 'Within', expiry: 90, description: 'Nightly export' })
    expect(made.passcode).toMatchObject({ violatesPolicy: false, policyViolations: [] })
  })

  it('refuses an edit only on the rules of the fields it changes: a passcode made before can still be renamed', async () => {
    const { auth, store } = setup()
    const old = await auth.passcodes.create(admin, 'acc', { name: 'Old', expiry: 'forever' })
    await auth.accounts.setPolicy(admin, 'acc', STRICT)
    const renamed = await auth.passcodes.update(admin, 'acc', old.passcode.id, { name: 'Old, renamed' })
    expect(renamed).toMatchObject({
      name: 'Old, renamed',
      violatesPolicy: true,
      policyViolations: ['requireExpiry', 'maxLifetimeDays', 'requireDescription'],
    })
    const before = await snapshot(store)
    await expect(auth.passcodes.update(admin, 'acc', old.passcode.id, { expiry: 365 })).rejects.toMatchObject({
      field: 'expiry',
      rule: 'maxLifetimeDays',
    })
    await expect(auth.passcodes.update(admin, 'acc', old.passcode.id, { description: '' })).rejects.toMatchObject({
      field: 'description',
      rule: 'requireDescription',
    })
    expect(await snapshot(store)).toEqual(before)
    const fixed = await auth.passcodes.update(admin, 'acc', old.passcode.id, { expiry: 30, description: 'Now within' })
    expect(fixed).toMatchObject({ violatesPolicy: false, policyViolations: [] })
  })

  it('refuses a grant longer than the maximum (infinite is 10 years) and a reset that would keep one, naming the field', async () => {
    const { auth, store } = setup()
    await auth.userPasscodes.grant(admin, 'acc', 'u_old', { validity: { type: 'finite', days: 365 } })
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 30 })
    const before = await snapshot(store)
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } })).rejects.toMatchObject({
      field: 'validity',
      rule: 'maxLifetimeDays',
    })
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 31 } })).rejects.toMatchObject({
      field: 'validity.days',
      rule: 'maxLifetimeDays',
    })
    await expect(auth.userPasscodes.reset(admin, 'acc', 'u_old')).rejects.toMatchObject({ field: 'validity', rule: 'maxLifetimeDays' })
    expect(await snapshot(store)).toEqual(before)
    expect(await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 30 } })).toMatchObject({ violatesPolicy: false })
  })

  it("applies the host's default to every account without its own; an account's own replaces it whole, null goes back", async () => {
    const { auth } = setup({ policy: { requireExpiry: true } })
    expect(await auth.accounts.getPolicy('acc')).toEqual({ maxLifetimeDays: null, requireExpiry: true, requireDescription: false, source: 'default' })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'F', expiry: 'forever' })).rejects.toMatchObject({ rule: 'requireExpiry' })
    expect(await auth.accounts.setPolicy(admin, 'acc', { requireDescription: true })).toEqual({
      maxLifetimeDays: null,
      requireExpiry: false,
      requireDescription: true,
      source: 'account',
    })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'F', expiry: 'forever' })).rejects.toMatchObject({ rule: 'requireDescription' })
    expect(await auth.passcodes.create(admin, 'acc', { name: 'F', expiry: 'forever', description: 'ok' })).toBeDefined()
    expect(await auth.accounts.setPolicy(admin, 'acc', null)).toMatchObject({ requireExpiry: true, source: 'default' })
    expect(await auth.accounts.getPolicy('other')).toMatchObject({ source: 'default' })
  })

  it('refuses a policy outside its ranges, naming the field, and a member setting one; nothing written', async () => {
    const { auth, store, events } = setup()
    for (const [input, field] of [
      [{ maxLifetimeDays: 0 }, 'policy.maxLifetimeDays'],
      [{ maxLifetimeDays: 3651 }, 'policy.maxLifetimeDays'],
      [{ maxLifetimeDays: 1.5 }, 'policy.maxLifetimeDays'],
      [{ requireExpiry: 'yes' }, 'policy.requireExpiry'],
      [{ maxDays: 30 }, 'policy'],
    ] as const) {
      const set = auth.accounts.setPolicy(admin, 'acc', input as never)
      await expect(set).rejects.toBeInstanceOf(InvalidInputError)
      await expect(set).rejects.toMatchObject({ field })
    }
    await expect(auth.accounts.setPolicy(member, 'acc', { requireExpiry: true })).rejects.toBeInstanceOf(ForbiddenError)
    expect(await store.getAccountPolicy!('acc')).toBeNull()
    expect(await trail(store)).toEqual([])
    expect(events).toEqual([])
    // The bounds themselves are allowed.
    expect(await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 1 })).toMatchObject({ maxLifetimeDays: 1 })
    expect(await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 3650 })).toMatchObject({ maxLifetimeDays: 3650 })
  })

  it('needs a store that keeps policies to set one, and the host default still applies without one', async () => {
    const base = memoryStore()
    const {
      getAccountPolicy: _get,
      setAccountPolicy: _set,
      claimPolicyNotices: _claim,
      completePolicyNotice: _done,
      releasePolicyNotice: _free,
      ...rest
    } = base
    const { auth } = setup({ store: rest, policy: { maxLifetimeDays: 30 } })
    await expect(auth.accounts.setPolicy(admin, 'acc', { requireExpiry: true })).rejects.toBeInstanceOf(ConfigurationError)
    expect(await auth.accounts.getPolicy('acc')).toMatchObject({ maxLifetimeDays: 30, source: 'default' })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'Long', expiry: 31 })).rejects.toMatchObject({ rule: 'maxLifetimeDays' })
  })
})

describe('SPEC 5.52 account policy: passcodes made before, marked and counted in one email', () => {
  async function withOldPasscodes(options: Parameters<typeof setup>[0] = {}) {
    const context = setup({ recipients, ...options })
    const { auth } = context
    const forever = await auth.passcodes.create(admin, 'acc', { name: 'Forever', expiry: 'forever', description: 'kept' })
    const long = await auth.passcodes.create(admin, 'acc', { name: 'Long', expiry: 365 })
    // Expiring beyond the notifier's 30-day window: the only emails are the policy's.
    const within = await auth.passcodes.create(admin, 'acc', { name: 'Within', expiry: 80, description: 'fine' })
    await auth.userPasscodes.grant(admin, 'acc', 'u_inf', { validity: { type: 'infinite' } })
    await auth.userPasscodes.grant(admin, 'acc', 'u_short', { validity: { type: 'finite', days: 7 } })
    await auth.userPasscodes.grant(admin, 'acc', 'u_gone', { validity: { type: 'infinite' } })
    await auth.userPasscodes.revoke(admin, 'acc', 'u_gone')
    return { ...context, forever, long, within }
  }

  it('marks what breaks it in the lists, keeps it working, and emails the admins once with the count', async () => {
    const mailer = memoryMailer()
    const { auth, forever, long, within, events, store } = await withOldPasscodes({ mailer })
    const policy = await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 90 })
    expect(policy).toEqual({ maxLifetimeDays: 90, requireExpiry: false, requireDescription: false, source: 'account' })

    const listed = await auth.passcodes.list(admin, 'acc')
    const marks = Object.fromEntries(listed.map((view) => [view.id, [view.violatesPolicy, view.policyViolations]]))
    expect(marks).toEqual({
      [forever.passcode.id]: [true, ['maxLifetimeDays']],
      [long.passcode.id]: [true, ['maxLifetimeDays']],
      [within.passcode.id]: [false, []],
    })
    const users = Object.fromEntries((await auth.userPasscodes.list(admin, 'acc')).map((view) => [view.userId, view.violatesPolicy]))
    expect(users).toMatchObject({ u_inf: true, u_short: false })
    // They keep working.
    expect((await auth.authenticate({ accountId: 'acc', passcode: long.value })).ok).toBe(true)

    // One email: two account passcodes and one user passcode (the revoked one does not count).
    expect(mailer.messages).toHaveLength(1)
    const [message] = mailer.messages
    expect(message!.to).toEqual(['admins+acc@example.com'])
    expect(message!.subject).toBe('3 passcodes break the new passcode policy of account acc')
    expect(message!.text).toContain('at most 90 days')
    expect(JSON.stringify(mailer.messages)).not.toContain(long.value)
    expect(JSON.stringify(mailer.messages)).not.toContain(long.passcode.hint)

    // The notifier's pass finds nothing left to send: exactly once.
    expect((await auth.notifyExpirations()).policies ?? []).toEqual([])
    expect(mailer.messages).toHaveLength(1)

    const records = await trail(store)
    const changes = records.filter((record) => record.action === 'account.policy_changed')
    expect(changes).toHaveLength(1)
    expect(changes[0]).toMatchObject({
      actor: { type: 'user', userId: 'u_admin', role: 'admin' },
      target: { type: 'account' },
      changes: {
        maxLifetimeDays: { before: null, after: 90 },
        requireExpiry: { before: null, after: false },
        requireDescription: { before: null, after: false },
      },
    })
    expect(records.at(-1)).toMatchObject({
      action: 'notification.sent',
      actor: { type: 'system' },
      target: { type: 'account' },
      changes: { notification: { after: 'policy_violations' }, count: { after: 3 } },
    })
    expect(events.filter((event) => event.type === 'account.policy_changed')).toEqual([
      expect.objectContaining({
        type: 'account.policy_changed',
        accountId: 'acc',
        actorUserId: 'u_admin',
        policy: { maxLifetimeDays: 90, requireExpiry: false, requireDescription: false, source: 'account' },
        violations: 3,
      }),
    ])
  })

  it('counts a Forever passcode and an infinite user passcode (10 calendar years) against the longest maximum, sends none when nothing breaks it, and changes nothing when the policy is the one it has', async () => {
    const mailer = memoryMailer()
    const { auth, store, events } = await withOldPasscodes({ mailer })
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 3650 })
    expect(mailer.messages.map((message) => message.subject)).toEqual(['2 passcodes break the new passcode policy of account acc'])
    const recorded = await actions(store)
    const emitted = events.length
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 3650 })
    expect(await actions(store)).toEqual(recorded)
    expect(events).toHaveLength(emitted)

    await auth.passcodes.create(admin, 'fresh', { name: 'Short', expiry: 30, description: 'fine' })
    await auth.accounts.setPolicy(admin, 'fresh', STRICT)
    expect(await actions(store, 'fresh')).toEqual(['passcode.created', 'account.policy_changed'])
    expect(mailer.messages).toHaveLength(1)
    expect((await auth.notifyExpirations()).policies ?? []).toEqual([])
  })

  it('retries a failed send on the notifier pass until it goes, then never again', async () => {
    const mailer = scriptedMailer((call) => call <= 2)
    const { auth, clock, store } = await withOldPasscodes({ mailer })
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 90 })
    expect(mailer.delivered).toEqual([])
    expect((await auth.notifyExpirations()).policies).toEqual([{ accountId: 'acc', count: 3, sent: false, reason: 'send_failed' }])
    expect((await auth.notifyExpirations()).policies).toEqual([{ accountId: 'acc', count: 3, sent: true, reason: null }])
    expect(mailer.delivered).toHaveLength(1)
    expect(mailer.delivered[0]!.subject).toContain('3 passcodes break')
    clock.advance(24 * 3_600_000)
    expect((await auth.notifyExpirations()).policies ?? []).toEqual([])
    expect(mailer.delivered).toHaveLength(1)
    expect((await actions(store)).filter((action) => action === 'notification.sent')).toHaveLength(1)
  })

  it('two instances over one store send the email once between them', async () => {
    const mailer = scriptedMailer((call) => call === 1)
    const { auth, store } = await withOldPasscodes({ mailer })
    const second = setup({ store, mailer, recipients })
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 90 })
    const [a, b] = await Promise.all([auth.notifyExpirations(), second.auth.notifyExpirations()])
    expect([...(a.policies ?? []), ...(b.policies ?? [])].filter((result) => result.sent)).toHaveLength(1)
    expect(mailer.delivered).toHaveLength(1)
    await second.auth.close()
  })

  it('a newer policy replaces an email not sent yet, and going back to one nothing breaks drops it', async () => {
    const mailer = scriptedMailer((call) => call <= 2)
    const { auth } = await withOldPasscodes({ mailer })
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 90 }) // 3 break it; the send fails
    await auth.accounts.setPolicy(admin, 'acc', { requireDescription: true }) // 1 breaks it; the send fails
    expect((await auth.notifyExpirations()).policies).toEqual([{ accountId: 'acc', count: 1, sent: true, reason: null }])
    expect(mailer.delivered).toHaveLength(1)
    expect(mailer.delivered[0]!.subject).toBe('1 passcode breaks the new passcode policy of account acc')

    const failing = scriptedMailer(() => true)
    const other = await withOldPasscodes({ mailer: failing })
    await other.auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 90 })
    await other.auth.accounts.setPolicy(admin, 'acc', null)
    expect((await other.auth.notifyExpirations()).policies ?? []).toEqual([])
  })

  it('makes no webhook event: SPEC 5.53 lists none for a policy change or its email', async () => {
    const { sender, sent } = recordingSender()
    const { auth } = await withOldPasscodes({ mailer: memoryMailer(), webhooks: { sender } })
    await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in', events: 'all' })
    await auth.accounts.setPolicy(admin, 'acc', { maxLifetimeDays: 90 })
    await auth.webhooks.dispatch()
    expect(sent).toEqual([])
  })
})
