import { expect, it } from 'vitest'
import { createPasscodeAuth } from '../../../src/service/create-passcode-auth'
import { WEBHOOK_RETRY_DELAYS_MS } from '../../../src/core/webhook-schedule'
import { memoryMailer } from '../../../src/mailers/memory/memory-mailer'
import type { PasscodeStore } from '../../../src/ports/passcode-store'
import { manualClock, TEST_KEY } from '../../helpers/service'
import { recordingSender } from '../../service/webhook-fixtures'
import { AUDIT_KEYS, signed, type StoreFixture } from './fixtures'

const admin = { userId: 'u_admin', role: 'admin' } as const

function service(store: PasscodeStore, clock = manualClock(Date.UTC(2030, 0, 1))) {
  const recorded = recordingSender(() => clock.ms)
  const mailer = memoryMailer()
  const auth = createPasscodeAuth({
    store,
    clock,
    mailer,
    recipients: (accountId) => [`admins+${accountId}@example.com`],
    encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    webhooks: { sender: recorded.sender },
  })
  return { auth, clock, mailer, ...recorded }
}

const bodies = (sent: readonly { body: string }[]) =>
  sent.map((request) => JSON.parse(request.body) as { type: string; timestamp: string; data: unknown })

/**
 * SPEC §5.53: the outbox. Each change's events are stored with the change and its audit
 * record (the memory store at its audit append, PostgreSQL by a trigger on the audit
 * table), the same events with the same data in every store; claims are exclusive and
 * leased; failing endpoints are disabled once.
 */
export function webhookCases(fixture: () => StoreFixture): void {
  it('webhooks: stores the same events, with the same data, for every kind of change', async () => {
    const { auth, sent, clock } = service(fixture().store)
    const at = clock.ms
    const actor = { type: 'user', userId: admin.userId, role: 'admin' }
    await auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/in', events: 'all' })
    const created = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 10 })
    const id = created.passcode.id
    const passcode = (name: string, hint: string) => ({ id, name, hint })
    await auth.passcodes.update(admin, 'acc_1', id, { name: 'Acme 2', description: 'x' })
    const rotated = await auth.passcodes.rotate(admin, 'acc_1', id, { overlapMinutes: 0 })
    await auth.passcodes.disable(admin, 'acc_1', id)
    await auth.passcodes.enable(admin, 'acc_1', id)
    await auth.notifyExpirations()
    const granted = await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.revoke(admin, 'acc_1', 'u_1')
    await auth.passcodes.delete(admin, 'acc_1', id)
    const leaked = await auth.passcodes.create(admin, 'acc_1', { name: 'Leaky', expiry: 90 })
    await auth.leaks.report([{ token: leaked.value, source: 'content' }], { source: 'github' })
    await auth.webhooks.dispatch()
    const iso = new Date(at).toISOString()
    const hint = rotated.passcode.hint
    const leakedPasscode = { id: leaked.passcode.id, name: 'Leaky', hint: leaked.passcode.hint }
    const system = { type: 'system' }
    expect(bodies(sent)).toEqual([
      { type: 'passcode.created', timestamp: iso, data: { passcode: passcode('Acme', created.passcode.hint), actor } },
      {
        type: 'passcode.updated',
        timestamp: iso,
        data: { passcode: passcode('Acme 2', created.passcode.hint), actor, changed: ['description', 'name'] },
      },
      { type: 'passcode.rotated', timestamp: iso, data: { passcode: passcode('Acme 2', hint), actor, previousValueEndsAt: null } },
      { type: 'passcode.disabled', timestamp: iso, data: { passcode: passcode('Acme 2', hint), actor } },
      { type: 'passcode.enabled', timestamp: iso, data: { passcode: passcode('Acme 2', hint), actor } },
      {
        type: 'passcode.expiring_soon',
        timestamp: iso,
        data: { passcode: passcode('Acme 2', hint), actor: system, expiresAt: created.passcode.expiresAt!.toISOString() },
      },
      { type: 'user_passcode.granted', timestamp: iso, data: { userPasscode: { userId: 'u_1', hint: granted.hint }, actor } },
      { type: 'user_passcode.revoked', timestamp: iso, data: { userPasscode: { userId: 'u_1', hint: granted.hint }, actor } },
      { type: 'passcode.deleted', timestamp: iso, data: { passcode: passcode('Acme 2', hint), actor } },
      { type: 'passcode.created', timestamp: iso, data: { passcode: leakedPasscode, actor } },
      {
        type: 'passcode.leaked',
        timestamp: iso,
        data: { passcode: leakedPasscode, actor: system, source: 'content', url: null, action: 'disabled' },
      },
      { type: 'passcode.disabled', timestamp: iso, data: { passcode: leakedPasscode, actor: system } },
    ])
    for (const value of [created.value, rotated.value, leaked.value]) expect(JSON.stringify(sent)).not.toContain(value)
  })

  it('webhooks: a credit crossing stores credits.low and credits.exhausted with the lease that crossed (SPEC 5.50, 5.53)', async () => {
    const { store } = fixture()
    const { auth, sent, clock } = service(store)
    if (store.leaseLimits === undefined) throw new Error('the store has no limits part')
    await auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/credits', events: ['credits.low', 'credits.exhausted'] })
    await auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/other', events: ['passcode.created'] })
    const metered = await auth.passcodes.create(admin, 'acc_1', { name: 'Metered', expiry: 90, credits: { remaining: 20 } })
    const granted = await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', {
      validity: { type: 'finite', days: 30 },
      credits: { remaining: 4, refill: { amount: 4, interval: 'day' } },
    })
    const lease = (kind: 'account' | 'user', key: string, credits: number) =>
      store.leaseLimits({
        kind,
        accountId: 'acc_1',
        key,
        now: clock.ms,
        credits,
        slots: 0,
        lowRatio: 0.1,
        notices: { token: 't', claimedUntil: clock.ms + 60_000 },
      })
    // 20 credits, the low line at 2: balances 10, 5, 2 (low), then 1, 0, and a lease that gets none (exhausted).
    for (const ask of [18, 9, 3, 2, 2, 2, 2]) await lease('account', metered.passcode.id, ask)
    // 4 credits refilled daily, the line at 0: balances 2, 1, 0 (low), then none (exhausted).
    for (let i = 0; i < 5; i++) await lease('user', 'u_1', 4)
    await auth.webhooks.dispatch()
    const iso = new Date(clock.ms).toISOString()
    const nextDay = new Date(Math.floor(clock.ms / 86_400_000 + 1) * 86_400_000).toISOString()
    const passcode = { id: metered.passcode.id, name: 'Metered', hint: metered.passcode.hint }
    const userPasscode = { userId: 'u_1', hint: granted.hint }
    const system = { type: 'system' }
    const toCredits = sent.filter((request) => request.url.endsWith('/credits'))
    expect(bodies(toCredits)).toEqual([
      { type: 'credits.low', timestamp: iso, data: { passcode, actor: system, remaining: 2, full: 20, nextRefillAt: null } },
      { type: 'credits.exhausted', timestamp: iso, data: { passcode, actor: system, remaining: 0, full: 20, nextRefillAt: null } },
      { type: 'credits.low', timestamp: iso, data: { userPasscode, actor: system, remaining: 0, full: 4, nextRefillAt: nextDay } },
      { type: 'credits.exhausted', timestamp: iso, data: { userPasscode, actor: system, remaining: 0, full: 4, nextRefillAt: nextDay } },
    ])
    // The other endpoint subscribed to creates only.
    expect(bodies(sent.filter((request) => request.url.endsWith('/other'))).map((body) => body.type)).toEqual(['passcode.created'])
  })

  it('webhooks: a deleted leak and a user passcode leak name what they acted on', async () => {
    const { auth, sent } = service(fixture().store)
    await auth.webhooks.create(admin, 'acc_1', {
      url: 'https://hooks.example.com/in',
      events: ['passcode.leaked', 'passcode.deleted', 'user_passcode.leaked', 'user_passcode.revoked'],
    })
    const leaked = await auth.passcodes.create(admin, 'acc_1', { name: 'Gone', expiry: 90 })
    await fixture().store.reportLeak!(
      {
        id: crypto.randomUUID(),
        kind: 'account',
        accountId: 'acc_1',
        key: leaked.passcode.id,
        hash: (await fixture().store.getAccountPasscode('acc_1', leaked.passcode.id))!.hash,
        action: 'delete',
        at: Date.UTC(2030, 0, 1),
        url: 'https://example.com/x',
        source: 'scanner',
        token: crypto.randomUUID(),
        claimedUntil: Date.UTC(2030, 0, 2),
      },
      signed({
        accountId: 'acc_1',
        at: Date.UTC(2030, 0, 1),
        actor: { type: 'system' },
        action: 'passcode.leak_reported',
        target: { type: 'passcode', id: leaked.passcode.id, name: 'Gone' },
        changes: {
          source: { before: null, after: 'scanner' },
          url: { before: null, after: 'https://example.com/x' },
          action: { before: null, after: 'deleted' },
        },
        requestId: null,
        clientAddress: null,
      }),
    )
    await auth.userPasscodes.grant(admin, 'acc_1', 'u_2', { validity: { type: 'infinite' } })
    const { value } = await auth.userPasscodes.reveal({ userId: 'u_2', role: 'member' }, 'acc_1')
    await auth.leaks.report([value], { source: 'chat' })
    await auth.webhooks.dispatch()
    const gone = { id: leaked.passcode.id, name: 'Gone', hint: leaked.passcode.hint }
    expect(bodies(sent).map((body) => [body.type, body.data])).toMatchObject([
      ['passcode.leaked', { passcode: gone, source: 'scanner', url: 'https://example.com/x', action: 'deleted' }],
      ['passcode.deleted', { passcode: gone }],
      ['user_passcode.leaked', { userPasscode: { userId: 'u_2', hint: expect.stringMatching(/^psc_/) }, action: 'revoked' }],
      ['user_passcode.revoked', { userPasscode: { userId: 'u_2' } }],
    ])
  })

  it('webhooks: an endpoint registered disabled gets no event until enabled; the 21st endpoint is the cap error', async () => {
    const { auth, sent } = service(fixture().store)
    const off = await auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/off', events: 'all', enabled: false })
    expect(off.endpoint).toMatchObject({ enabled: false, disabledReason: null })
    await auth.passcodes.create(admin, 'acc_1', { name: 'Before', expiry: 90 })
    await auth.webhooks.dispatch()
    expect(sent).toHaveLength(0)
    expect((await auth.webhooks.list(admin, 'acc_1')).map((view) => view.enabled)).toEqual([false])
    await auth.webhooks.update(admin, 'acc_1', off.endpoint.id, { enabled: true })
    await auth.passcodes.create(admin, 'acc_1', { name: 'After', expiry: 90 })
    await auth.webhooks.dispatch()
    expect(bodies(sent).map((body) => body.type)).toEqual(['passcode.created'])
    for (let i = 1; i < 20; i++) await auth.webhooks.create(admin, 'acc_1', { url: `https://hooks.example.com/${i}`, events: 'all' })
    await expect(auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/20', events: 'all' })).rejects.toMatchObject({
      code: 'ERR_CAP_REACHED',
      limit: 20,
    })
    expect(await auth.webhooks.list(admin, 'acc_1')).toHaveLength(20)
  })

  it('webhooks: claims are exclusive across instances, leased, and completed only by their holder', async () => {
    const { auth, clock } = service(fixture().store)
    await auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/in', events: ['passcode.created'] })
    for (let i = 0; i < 12; i++) await auth.passcodes.create(admin, 'acc_1', { name: `P${i}`, expiry: 90 })
    const stores = [fixture().store, await fixture().peer(), await fixture().peer()]
    const now = clock.ms
    const batches = await Promise.all(stores.map((store, i) => store.webhooks!.claimDeliveries({ now, leaseMs: 60_000, limit: 5, token: `t${i}` })))
    const ids = batches.flat().map((claim) => claim.id)
    expect(ids).toHaveLength(12)
    expect(new Set(ids).size).toBe(12)
    // Held: nothing is due until the lease ends; then the same webhook-id is taken over.
    expect(await stores[0]!.webhooks!.claimDeliveries({ now: now + 59_999, leaseMs: 60_000, limit: 50, token: 'late' })).toEqual([])
    const [first] = batches.flat()
    const retaken = await stores[1]!.webhooks!.claimDeliveries({ now: now + 60_000, leaseMs: 60_000, limit: 50, token: 'again' })
    expect(retaken.map((claim) => claim.id).sort()).toEqual([...ids].sort())
    const outcome = { id: first!.id, at: now + 60_001, ok: true, statusCode: 200, error: null, state: 'succeeded' as const, nextAttemptAt: null }
    await stores[0]!.webhooks!.completeDeliveries([{ ...outcome, token: first!.token }], 1e9, AUDIT_KEYS.signer) // the lost claim: nothing
    let [view] = await stores[0]!.webhooks!.listDeliveries('acc_1', { limit: 100 }).then((rows) => rows.filter((row) => row.id === first!.id))
    expect(view).toMatchObject({ state: 'pending', attempts: 0 })
    await stores[0]!.webhooks!.completeDeliveries([{ ...outcome, token: 'again' }], 1e9, AUDIT_KEYS.signer)
    ;[view] = await stores[0]!.webhooks!.listDeliveries('acc_1', { limit: 100 }).then((rows) => rows.filter((row) => row.id === first!.id))
    expect(view).toMatchObject({ state: 'succeeded', attempts: 1, lastStatusCode: 200, nextAttemptAt: null })
  })

  it('webhooks: retries on schedule, disables an endpoint failing for 5 days once (audited, admins emailed), pages deliveries', async () => {
    const { auth, clock, answerWith, mailer, sent } = service(fixture().store)
    const { endpoint } = await auth.webhooks.create(admin, 'acc_1', { url: 'https://hooks.example.com/in', events: 'all' })
    answerWith(() => ({ statusCode: 503, error: 'Answered 503' }))
    await auth.passcodes.create(admin, 'acc_1', { name: 'First', expiry: 90 })
    await auth.webhooks.dispatch()
    for (const delay of WEBHOOK_RETRY_DELAYS_MS.slice(0, 3)) {
      clock.advance(delay)
      await auth.webhooks.dispatch()
    }
    expect(sent).toHaveLength(4)
    expect(new Set(sent.map((request) => request.headers['webhook-id'])).size).toBe(1)
    for (let day = 0; day < 6; day++) {
      clock.advance(86_400_000)
      await auth.passcodes.create(admin, 'acc_1', { name: `Day ${day}`, expiry: 90 })
      await auth.webhooks.dispatch()
    }
    const [view] = await auth.webhooks.list(admin, 'acc_1')
    expect(view).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: 'failing' })
    expect(mailer.messages).toHaveLength(1)
    await auth.webhooks.dispatch()
    expect(mailer.messages).toHaveLength(1)
    const actions = (await fixture().store.audit!.records('acc_1', { limit: 200 })).map((record) => record.action)
    expect(actions.filter((action) => action === 'webhook.endpoint_disabled')).toHaveLength(1)
    const first = await auth.webhooks.deliveries(admin, 'acc_1', { limit: 3 })
    const second = await auth.webhooks.deliveries(admin, 'acc_1', { limit: 3, cursor: first.nextCursor! })
    const all = await auth.webhooks.deliveries(admin, 'acc_1', { limit: 100 })
    expect([...first.deliveries, ...second.deliveries].map((delivery) => delivery.id)).toEqual(
      all.deliveries.slice(0, 6).map((delivery) => delivery.id),
    )
    expect(all.deliveries.at(-1)!.eventType).toBe('passcode.created')
    expect(all.deliveries.at(-1)!.attempts).toBeGreaterThanOrEqual(4)
  })
}
