import { describe, expect, it } from 'vitest'
import { CapReachedError, createPasscodeAuth } from '../../src/index'
import { memoryMailer, memoryStore } from '../../src/memory'
import { WEBHOOK_RETRY_DELAYS_MS } from '../../src/core/webhook-schedule'
import { admin, manualClock, member, TEST_KEY } from '../helpers/service'
import { recordingSender, typesOf, verifiedBy } from './webhook-fixtures'

const recipients = (accountId: string) => [`admins+${accountId}@example.com`]

/** A service over a memory store, a clock at the real time (receivers check timestamps), a recording sender. */
function fixture(options: { store?: ReturnType<typeof memoryStore> } = {}) {
  const clock = manualClock(Date.now())
  const store = options.store ?? memoryStore()
  const { sender, sent, answerWith } = recordingSender(() => clock.ms)
  const mailer = memoryMailer()
  const auth = createPasscodeAuth({
    store,
    clock,
    mailer,
    recipients,
    partners: ['Acme'],
    encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    webhooks: { sender },
  })
  return { auth, clock, store, sent, answerWith, mailer }
}

describe('SPEC 5.53 webhooks on the memory store', () => {
  it('delivers a passcode.created event that the standardwebhooks package verifies, naming the passcode and never its value', async () => {
    const { auth, sent } = fixture()
    const { endpoint, secret } = await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in', events: 'all' })
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(JSON.stringify(await auth.webhooks.list(admin, 'acc'))).not.toContain(secret)
    const created = await auth.passcodes.create(admin, 'acc', { name: 'Acme sync', expiry: 90 })
    const report = await auth.webhooks.dispatch()
    expect(report).toMatchObject({ succeeded: 1, retrying: 0, failed: 0 })
    expect(sent).toHaveLength(1)
    const body = verifiedBy(secret, sent[0]!)
    expect(body).toEqual({
      type: 'passcode.created',
      timestamp: created.passcode.createdAt.toISOString(),
      data: {
        passcode: { id: created.passcode.id, name: 'Acme sync', hint: created.passcode.hint },
        actor: { type: 'user', userId: admin.userId, role: 'admin' },
      },
    })
    expect(sent[0]!.url).toBe(endpoint.url)
    expect(sent[0]!.body).not.toContain(created.value)
    const [delivery] = (await auth.webhooks.deliveries(admin, 'acc')).deliveries
    expect(delivery).toMatchObject({ id: sent[0]!.headers['webhook-id'], status: 'succeeded', attempts: 1, lastStatusCode: 204 })
  })

  it("delivers credits.low and credits.exhausted when requests spend a passcode's credits, beside the emails (SPEC 5.50)", async () => {
    const { auth, sent, mailer } = fixture()
    const { secret } = await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in', events: ['credits.low', 'credits.exhausted'] })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Metered', expiry: 90, credits: { remaining: 20 } })
    const outcomes: string[] = []
    for (let i = 0; i < 25; i++) outcomes.push((await auth.authenticate({ accountId: 'acc', passcode: value })).ok ? 'ok' : 'refused')
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(20)
    await auth.webhooks.dispatch()
    const events = sent.map((request) => verifiedBy(secret, request))
    expect(events.map((event) => event.type)).toEqual(['credits.low', 'credits.exhausted'])
    for (const event of events) {
      expect(event.data).toMatchObject({ passcode: { id: passcode.id, name: 'Metered', hint: passcode.hint }, actor: { type: 'system' }, full: 20 })
    }
    expect(events[1]!.data).toMatchObject({ remaining: 0, nextRefillAt: null })
    expect(JSON.stringify(sent)).not.toContain(value)
    // The emails go out as before (durable, through the notifier's pass), with the balance the event has.
    const remaining = String(events[0]!.data.remaining)
    await expect
      .poll(() => mailer.messages.map((message) => message.subject).sort(), { timeout: 5_000 })
      .toEqual(['Passcode "Metered" has run out of credits', `Passcode "Metered" is low on credits: ${remaining} of 20 left`])
  })

  it('makes one event per change of every kind, in order, and none for a change refused', async () => {
    const { auth, sent, store } = fixture()
    await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in', events: 'all' })
    const created = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'acme', expiry: 90 })).rejects.toThrow()
    const id = created.passcode.id
    await auth.passcodes.update(admin, 'acc', id, { name: 'Acme 2', partners: ['Acme'] })
    const rotated = await auth.passcodes.rotate(admin, 'acc', id, { overlapMinutes: 60 })
    await auth.passcodes.disable(admin, 'acc', id)
    await auth.passcodes.enable(admin, 'acc', id)
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.reset(admin, 'acc', 'u_1')
    await auth.userPasscodes.revoke(admin, 'acc', 'u_1')
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    await auth.passcodes.delete(admin, 'acc', id)
    await auth.webhooks.dispatch()
    expect(typesOf(sent)).toEqual([
      'passcode.created',
      'passcode.updated',
      'passcode.rotated',
      'passcode.disabled',
      'passcode.enabled',
      'user_passcode.granted',
      'user_passcode.reset',
      'user_passcode.revoked',
      'passcode.deleted',
    ])
    const bodies = sent.map((request) => JSON.parse(request.body) as { data: Record<string, unknown> })
    expect(bodies[1]!.data.changed).toEqual(['name', 'partners'])
    expect(bodies[2]!.data).toMatchObject({ passcode: { hint: rotated.passcode.hint }, previousValueEndsAt: expect.any(String) })
    // The deleted passcode is still named with its hint: the store read it before the delete.
    expect(bodies[8]!.data).toMatchObject({ passcode: { id, name: 'Acme 2', hint: rotated.passcode.hint } })
    expect(bodies[5]!.data).toMatchObject({ userPasscode: { userId: 'u_1', hint: expect.stringMatching(/^psc_/) } })
    // One webhook-id per event and endpoint.
    expect(new Set(sent.map((request) => request.headers['webhook-id'])).size).toBe(sent.length)
    expect((await store.audit.records('acc', { limit: 100 })).length).toBeGreaterThan(9)
  })

  it('sends passcode.leaked with the change the report made, and expiring_soon/expired from the notifier’s emails', async () => {
    const { auth, sent, clock } = fixture()
    await auth.webhooks.create(admin, 'acc', {
      url: 'https://hooks.example.com/in',
      events: ['passcode.leaked', 'passcode.disabled', 'passcode.expiring_soon', 'passcode.expired'],
    })
    const soon = await auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 10 })
    const leaked = await auth.passcodes.create(admin, 'acc', { name: 'Leaked', expiry: 90 })
    await auth.leaks.report([{ token: leaked.value, url: 'https://github.com/o/r/blob/main/.env', source: 'content' }], { source: 'github' })
    await auth.notifyExpirations()
    clock.advance(11 * 86_400_000)
    await auth.notifyExpirations()
    await auth.webhooks.dispatch()
    expect(typesOf(sent)).toEqual(['passcode.leaked', 'passcode.disabled', 'passcode.expiring_soon', 'passcode.expired'])
    expect(JSON.parse(sent[0]!.body)).toMatchObject({
      data: {
        passcode: { id: leaked.passcode.id, name: 'Leaked', hint: leaked.passcode.hint },
        source: 'content',
        url: 'https://github.com/o/r/blob/main/.env',
        action: 'disabled',
      },
    })
    expect(JSON.parse(sent[2]!.body)).toMatchObject({
      data: { passcode: { id: soon.passcode.id }, expiresAt: soon.passcode.expiresAt!.toISOString() },
    })
  })

  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h with the same webhook-id, then fails', async () => {
    const { auth, sent, answerWith, clock } = fixture()
    await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in', events: ['passcode.created'] })
    answerWith(() => ({ statusCode: 500, error: 'Answered 500' }))
    await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    const start = clock.ms
    await auth.webhooks.dispatch()
    for (const delay of WEBHOOK_RETRY_DELAYS_MS) {
      clock.advance(delay - 1)
      await auth.webhooks.dispatch() // not due yet
      clock.advance(1)
      await auth.webhooks.dispatch()
    }
    clock.advance(30 * 86_400_000)
    await auth.webhooks.dispatch()
    expect(sent.map((request) => request.at - start)).toEqual(
      WEBHOOK_RETRY_DELAYS_MS.reduce<number[]>((at, delay) => [...at, at.at(-1)! + delay], [0]),
    )
    expect(new Set(sent.map((request) => request.headers['webhook-id'])).size).toBe(1)
    const [delivery] = (await auth.webhooks.deliveries(admin, 'acc')).deliveries
    expect(delivery).toMatchObject({ status: 'failed', attempts: 8, lastStatusCode: 500, nextAttemptAt: null })

    // A replay is one more attempt now, with the same webhook-id.
    answerWith(() => ({ statusCode: 200, error: null }))
    await auth.webhooks.replay(admin, 'acc', delivery!.id)
    await auth.webhooks.dispatch()
    expect(sent.at(-1)!.headers['webhook-id']).toBe(delivery!.id)
    expect((await auth.webhooks.deliveries(admin, 'acc')).deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 9 })
  })

  it('disables an endpoint whose every attempt failed for 5 days, once, with an audit record and one email to its admins', async () => {
    const { auth, answerWith, clock, mailer, store } = fixture()
    const { endpoint } = await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in?token=not-for-logs', events: 'all' })
    answerWith(() => ({ statusCode: null, error: 'Connection failed (ECONNREFUSED)' }))
    for (let day = 0; day <= 5; day++) {
      await auth.passcodes.create(admin, 'acc', { name: `Day ${day}`, expiry: 'forever' })
      for (let hour = 0; hour < 24; hour += 2) {
        await auth.webhooks.dispatch()
        clock.advance(2 * 3_600_000)
      }
    }
    const [view] = await auth.webhooks.list(admin, 'acc')
    expect(view).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: 'failing' })
    expect(mailer.messages).toHaveLength(1)
    expect(mailer.messages[0]).toMatchObject({ to: ['admins+acc@example.com'], subject: expect.stringContaining('disabled') })
    expect(mailer.messages[0]!.text).not.toContain('not-for-logs')
    const actions = (await store.audit.records('acc', { limit: 500 })).map((record) => record.action)
    expect(actions.filter((action) => action === 'webhook.endpoint_disabled')).toHaveLength(1)
    // Disabled: a new change makes no delivery; enabling clears the failing state.
    const before = (await auth.webhooks.deliveries(admin, 'acc', { limit: 100 })).deliveries.length
    await auth.passcodes.create(admin, 'acc', { name: 'After', expiry: 'forever' })
    expect((await auth.webhooks.deliveries(admin, 'acc', { limit: 100 })).deliveries.length).toBe(before)
    expect(await auth.webhooks.update(admin, 'acc', endpoint.id, { enabled: true })).toMatchObject({
      enabled: true,
      disabledReason: null,
      failingSince: null,
    })
  })

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const { auth, sent, clock } = fixture()
    const { endpoint, secret: first } = await auth.webhooks.create(admin, 'acc', { url: 'https://hooks.example.com/in', events: 'all' })
    const { secret: second, endpoint: rotated } = await auth.webhooks.rotateSecret(admin, 'acc', endpoint.id)
    expect(rotated.previousSecretEndsAt).toEqual(new Date(clock.ms + 86_400_000))
    await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 90 })
    await auth.webhooks.dispatch()
    expect(sent[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(verifiedBy(first, sent[0]!).type).toBe('passcode.created')
    expect(verifiedBy(second, sent[0]!).type).toBe('passcode.created')
    clock.advance(86_400_001)
    await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 90 })
    await auth.webhooks.dispatch()
    expect(sent[1]!.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    // The receiver checks the timestamp against its own clock: verify as of the attempt.
    expect(() =>
      verifiedBy(first, { ...sent[1]!, headers: { ...sent[1]!.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) } }),
    ).toThrow()
  })

  it('sends only the event types an endpoint chose, a test event to one endpoint, and nothing to a disabled one', async () => {
    const { auth, sent } = fixture()
    const leaks = await auth.webhooks.create(admin, 'acc', { url: 'https://a.example.com/', events: ['user_passcode.granted'] })
    const off = await auth.webhooks.create(admin, 'acc', { url: 'https://b.example.com/', events: 'all' })
    await auth.webhooks.update(admin, 'acc', off.endpoint.id, { enabled: false })
    await auth.webhooks.create(admin, 'other', { url: 'https://c.example.com/', events: 'all' })
    await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 90 })
    await auth.userPasscodes.grant(admin, 'acc', 'u_1', { validity: { type: 'infinite' } })
    await auth.webhooks.sendTest(admin, 'acc', leaks.endpoint.id)
    await auth.webhooks.dispatch()
    expect(sent.map((request) => [request.url, JSON.parse(request.body).type])).toEqual([
      ['https://a.example.com/', 'user_passcode.granted'],
      ['https://a.example.com/', 'webhook.test'],
    ])
  })

  it('registers a disabled endpoint with enabled: false (it receives nothing until enabled) and an enabled one by default', async () => {
    const { auth, sent, store } = fixture()
    const on = await auth.webhooks.create(admin, 'acc', { url: 'https://a.example.com/', events: 'all', enabled: true })
    const off = await auth.webhooks.create(admin, 'acc', { url: 'https://b.example.com/', events: 'all', enabled: false })
    expect(on.endpoint).toMatchObject({ enabled: true, disabledReason: null })
    expect(off.endpoint).toMatchObject({ enabled: false, disabledReason: null, failingSince: null })
    // Both were made at the same instant: list order between them is not the point here.
    expect((await auth.webhooks.list(admin, 'acc')).map((view) => [view.url, view.enabled]).sort()).toEqual([
      ['https://a.example.com/', true],
      ['https://b.example.com/', false],
    ])
    await expect(auth.webhooks.create(admin, 'acc', { url: 'https://c.example.com/', events: 'all', enabled: 'no' as never })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'enabled',
    })
    await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 90 })
    await auth.webhooks.dispatch()
    expect(sent.map((request) => request.url)).toEqual(['https://a.example.com/'])
    await auth.webhooks.update(admin, 'acc', off.endpoint.id, { enabled: true })
    await auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 90 })
    await auth.webhooks.dispatch()
    expect(
      sent
        .slice(1)
        .map((request) => request.url)
        .sort(),
    ).toEqual(['https://a.example.com/', 'https://b.example.com/'])
    // The record of the create says `enabled` when it is false, as it says a description when there is one.
    const created = (await store.audit.records('acc', { limit: 10 })).filter((record) => record.action === 'webhook.endpoint_created')
    expect(created.map((record) => record.changes.enabled)).toEqual([undefined, { before: null, after: false }])
  })

  it('lets only admins manage webhooks, checks the input, and audits every change without the secret', async () => {
    const { auth, store } = fixture()
    await expect(auth.webhooks.create(member, 'acc', { url: 'https://a.example.com/', events: 'all' })).rejects.toMatchObject({
      code: 'ERR_FORBIDDEN',
    })
    await expect(auth.webhooks.list(member, 'acc')).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' })
    for (const url of ['ftp://a.example.com/', 'https://user:pw@a.example.com/', 'https://a.example.com/#x', 'not a url'])
      await expect(auth.webhooks.create(admin, 'acc', { url, events: 'all' })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'url' })
    await expect(auth.webhooks.create(admin, 'acc', { url: 'https://a.example.com/', events: [] })).rejects.toMatchObject({ field: 'events' })
    await expect(auth.webhooks.create(admin, 'acc', { url: 'https://a.example.com/', events: ['passcode.nope'] as never })).rejects.toMatchObject({
      field: 'events',
    })
    const { endpoint, secret } = await auth.webhooks.create(admin, 'acc', {
      url: 'https://a.example.com/?key=k',
      events: ['passcode.created', 'passcode.created'],
    })
    expect(endpoint.events).toEqual(['passcode.created'])
    const rotated = await auth.webhooks.rotateSecret(admin, 'acc', endpoint.id)
    await auth.webhooks.update(admin, 'acc', endpoint.id, { description: 'CRM sync' })
    await auth.webhooks.delete(admin, 'acc', endpoint.id)
    await expect(auth.webhooks.delete(admin, 'acc', endpoint.id)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' })
    const records = await store.audit.records('acc', { limit: 10 })
    expect(records.map((record) => record.action)).toEqual([
      'webhook.endpoint_created',
      'webhook.secret_rotated',
      'webhook.endpoint_updated',
      'webhook.endpoint_deleted',
    ])
    expect(records[0]).toMatchObject({ target: { type: 'webhook', id: endpoint.id }, changes: { url: { after: 'https://a.example.com/' } } })
    const text = JSON.stringify(records)
    for (const hidden of [secret, rotated.secret, 'key=k']) expect(text).not.toContain(hidden)
  })

  it('refuses the 21st endpoint of an account with the cap error (409), naming webhook endpoints, and writes nothing', async () => {
    const { auth, store } = fixture()
    for (let i = 0; i < 20; i++) await auth.webhooks.create(admin, 'acc', { url: `https://a.example.com/${i}`, events: 'all' })
    const refused = auth.webhooks.create(admin, 'acc', { url: 'https://a.example.com/20', events: 'all' })
    await expect(refused).rejects.toBeInstanceOf(CapReachedError)
    await expect(refused).rejects.toMatchObject({
      code: 'ERR_CAP_REACHED',
      limit: 20,
      message: 'The account already has the maximum of 20 webhook endpoints; delete one first',
    })
    expect(await auth.webhooks.list(admin, 'acc')).toHaveLength(20)
    expect((await store.audit.records('acc', { limit: 100 })).filter((record) => record.action === 'webhook.endpoint_created')).toHaveLength(20)
    // Another account has its own 20.
    await expect(auth.webhooks.create(admin, 'other', { url: 'https://a.example.com/20', events: 'all' })).resolves.toBeDefined()
  })

  it('sends each attempt once when two services share the store and dispatch at the same time', async () => {
    const store = memoryStore()
    const one = fixture({ store })
    const two = fixture({ store })
    await one.auth.webhooks.create(admin, 'acc', { url: 'https://a.example.com/', events: 'all' })
    for (let i = 0; i < 30; i++) await one.auth.passcodes.create(admin, 'acc', { name: `P${i}`, expiry: 90 })
    await Promise.all([one.auth.webhooks.dispatch(), two.auth.webhooks.dispatch(), one.auth.webhooks.dispatch()])
    const ids = [...one.sent, ...two.sent].map((request) => request.headers['webhook-id'])
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
  })
})
