import type { PGlite } from '@electric-sql/pglite'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  AuditChainBrokenError,
  createPasscodeAuth,
  InvalidOptionsError,
  type AuditEvent,
  type AuditRecord,
  type PasscodeStore,
} from '../../src/index'
import { auditKeyring } from '../../src/core/audit-keys'
import { memoryStore } from '../../src/memory'
import { freshPglite } from '../helpers/pglite'
import { admin, member, settingsWriter, setup, TEST_KEY } from '../helpers/service'
import { openSqlFixture, schemaPool } from '../stores/sql-fixture'
import { everyone, scriptedMailer } from './notify-fixtures'

const ACCOUNT = 'acc_audit'
const PEPPER = 'pepper-for-audit-tests-only-0123456789'
const DAY = 86_400_000
/** The audit key of these tests; obviously not a real secret. */
const AUDIT_KEY = { id: 'a1', key: new Uint8Array(32).fill(9) }
const KEYS = auditKeyring([AUDIT_KEY])

/** Everything a record may never contain: the values, hashes and ciphertexts the store holds, and the keys. */
async function secretsOf(store: PasscodeStore, values: readonly string[]): Promise<string[]> {
  const secrets = [...values, PEPPER, Buffer.from(TEST_KEY).toString('base64'), Buffer.from(TEST_KEY).toString('hex')]
  for (const record of await store.listAccountPasscodes(ACCOUNT)) {
    secrets.push(record.hash, record.hint)
    if (record.previousHash !== null) secrets.push(record.previousHash)
  }
  for (const record of await store.listUserPasscodes(ACCOUNT)) secrets.push(record.hash, record.ciphertext, record.hint)
  return secrets
}

/** No passcode-shaped string, JWE or secret anywhere in `text`. */
function expectNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text.includes(secret), 'a secret appears in the audit trail').toBe(false)
  expect(text).not.toMatch(/psc_[A-Za-z0-9]{10,}/)
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./)
}

/**
 * The store, whose first call of `method` waits (after the service's read, before its
 * write) until `release()`: other actions run in between, as concurrent ones may.
 */
function holdingFirst(
  store: PasscodeStore,
  method: 'rotateAccountPasscode' | 'deleteAccountPasscode' | 'resetUserPasscode' | 'reportLeak' | 'setAcceptedPasscodes',
) {
  let release!: () => void
  let arrived!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const reached = new Promise<void>((resolve) => (arrived = resolve))
  let calls = 0
  const held = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if (property !== method || typeof value !== 'function') return value
      return async (...args: unknown[]) => {
        if (calls++ === 0) {
          arrived()
          await released
        }
        return (value as (...args: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { store: held, reached, release }
}

/**
 * One PGlite for the file (starting one costs about a CPU-second); each test gets an
 * empty, migrated schema of its own in it: one an earlier test emptied (see SchemaPool),
 * as a migration costs a third of a CPU-second there and emptying a schema a fiftieth.
 */
let pglite: Promise<PGlite> | undefined
const schemas = schemaPool()
afterAll(async () => {
  const db = await pglite
  if (db === undefined) return
  await schemas.drop(db)
  await db.close()
})

const stores: Record<string, () => Promise<{ store: PasscodeStore; close(): Promise<void> }>> = {
  memory: async () => ({ store: memoryStore(), close: async () => {} }),
  PGlite: async () => {
    const db = await (pglite ??= freshPglite())
    return openSqlFixture({ main: db, another: async () => ({ db, close: async () => {} }) }, schemas, { listen: false })
  },
}

describe.each(Object.keys(stores))('SPEC 5.40 the audit trail in the service (%s store)', (kind) => {
  let opened: { store: PasscodeStore; close(): Promise<void> }
  beforeEach(async () => {
    opened = await stores[kind]!()
  })
  afterEach(async () => {
    await opened.close()
  })
  const service = () =>
    setup({ store: opened.store, pepper: PEPPER, auditKeys: [AUDIT_KEY], mailer: scriptedMailer((call) => call === 2), recipients: everyone })
  const all = async (auth: ReturnType<typeof setup>['auth']): Promise<AuditRecord[]> => {
    const out: AuditRecord[] = []
    let cursor: string | undefined
    do {
      const page = await auth.audit.list(admin, ACCOUNT, { limit: 7, ...(cursor !== undefined && { cursor }) })
      out.push(...page.records)
      cursor = page.cursor ?? undefined
    } while (cursor !== undefined)
    return out.reverse()
  }

  it('writes exactly one record per action, with who, what, to what, and the changed fields', async () => {
    const { auth, clock } = service()
    const withRequest = { ...admin, requestId: 'req-1', clientAddress: '203.0.113.9' }
    const { passcode, value: first } = await auth.passcodes.create(withRequest, ACCOUNT, { name: 'Acme sync', expiry: 30 })
    await auth.passcodes.update(settingsWriter, ACCOUNT, passcode.id, { name: 'Acme nightly' })
    await auth.passcodes.update(admin, ACCOUNT, passcode.id, { partners: ['acme'] })
    const { value: second } = await auth.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: 60 })
    await auth.userPasscodes.grant(admin, ACCOUNT, 'u_member', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.reset(admin, ACCOUNT, 'u_member')
    const { value: third } = await auth.userPasscodes.reveal(member, ACCOUNT)
    await auth.userPasscodes.revoke(admin, ACCOUNT, 'u_member')
    await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'both')
    const { passcode: soon } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Soon', expiry: 10 })
    const { passcode: later } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Later', expiry: 20 })
    clock.advance(25 * DAY)
    // The scripted mailer fails its second call: one sent, one failed.
    const report = await auth.notifyExpirations()
    const secrets = await secretsOf(opened.store, [first, second, third])
    await auth.passcodes.delete(admin, ACCOUNT, passcode.id)

    const records = await all(auth)
    const notices = records.slice(11, -1)
    expect(records.map((record) => record.action)).toEqual([
      'passcode.created',
      'passcode.updated',
      'passcode.partners_changed',
      'passcode.rotated',
      'user_passcode.granted',
      'user_passcode.reset',
      'user_passcode.revealed',
      'user_passcode.revoked',
      'account.accepted_passcodes_changed',
      'passcode.created',
      'passcode.created',
      ...notices.map((record) => record.action),
      'passcode.deleted',
    ])
    // One record per notification sent or failed, about that passcode, by the system.
    const noticeKey = (action: string, id: string) => `${action} ${id}`
    expect(notices.map((record) => noticeKey(record.action, (record.target as { id: string }).id)).sort()).toEqual(
      [
        ...report.sent.map((line) => noticeKey('notification.sent', line.passcodeId)),
        ...report.failed.map((line) => noticeKey('notification.failed', line.passcodeId)),
      ].sort(),
    )
    expect(report.failed).toHaveLength(1)
    expect(notices.every((record) => record.actor.type === 'system' && record.requestId === null)).toBe(true)
    expect(notices.map((record) => (record.target as { id: string }).id).sort()).toEqual([passcode.id, soon.id, later.id].sort())
    expect(records.map((record) => record.sequence)).toEqual(records.map((_, index) => index + 1))
    expect(records[0]).toMatchObject({
      accountId: ACCOUNT,
      at: Date.UTC(2026, 0, 1),
      actor: { type: 'user', userId: 'u_admin', role: 'admin' },
      target: { type: 'passcode', id: passcode.id, name: 'Acme sync' },
      changes: {
        name: { before: null, after: 'Acme sync' },
        expiry: { before: null, after: 30 },
        expiresAt: { before: null, after: Date.UTC(2026, 0, 31) },
      },
      requestId: 'req-1',
      clientAddress: '203.0.113.9',
    })
    expect(records[1]).toMatchObject({
      actor: { type: 'user', userId: 'u_writer', role: 'member' },
      target: { name: 'Acme nightly' },
      changes: { name: { before: 'Acme sync', after: 'Acme nightly' } },
      requestId: null,
      clientAddress: null,
    })
    expect(Object.keys(records[1]!.changes)).toEqual(['name'])
    expect(records[2]!.changes).toEqual({ partners: { before: null, after: ['acme'] } })
    expect(records[3]!.changes).toEqual({ previousValueEndsAt: { before: null, after: Date.UTC(2026, 0, 1) + 3_600_000 } })
    expect(records[4]).toMatchObject({ target: { type: 'user', id: 'u_member' }, changes: { validity: { before: null, after: '30 days' } } })
    expect(records[6]).toMatchObject({ actor: { userId: 'u_member', role: 'member' }, target: { type: 'user', id: 'u_member' }, changes: {} })
    expect(records[8]).toMatchObject({ target: { type: 'account' }, changes: { acceptedPasscodes: { before: 'account', after: 'both' } } })
    expect(records.at(-1)).toMatchObject({
      target: { type: 'passcode', id: passcode.id, name: 'Acme nightly' },
      changes: { name: { before: 'Acme nightly', after: null } },
    })

    // Each record is signed under the audit key and covers the one before.
    for (const [index, record] of records.entries()) {
      expect(record).toMatchObject({ version: 2, keyId: AUDIT_KEY.id, targetId: 'id' in record.target ? record.target.id : null })
      expect(record.hash).toBe(KEYS.expectedHash(record))
      expect(record.previousHash).toBe(index === 0 ? '0'.repeat(64) : records[index - 1]!.hash)
    }
    expect(await auth.audit.verify(ACCOUNT)).toEqual({
      ok: true,
      records: records.length,
      unkeyed: 0,
      head: { sequence: records.length, hash: records.at(-1)!.hash },
    })

    // No value, hash, ciphertext, hint or key, in the records or the export.
    expectNoSecret(JSON.stringify(records), secrets)
    const lines: string[] = []
    for await (const line of auth.audit.export(admin, ACCOUNT)) lines.push(line)
    expect(lines).toHaveLength(records.length)
    expectNoSecret(lines.join(''), secrets)
    expect(JSON.parse(lines[0]!)).toMatchObject({ sequence: 1, action: 'passcode.created', time: '2026-01-01T00:00:00.000Z', hash: records[0]!.hash })
  })

  it('writes no record for a refused action', async () => {
    const { auth } = setup({ store: opened.store, limits: { maxAccountPasscodes: 1 } })
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Only', expiry: 30 })
    const refusals = [
      auth.passcodes.create(admin, ACCOUNT, { name: 'Over the cap', expiry: 30 }),
      auth.passcodes.create(member, ACCOUNT, { name: 'Forbidden', expiry: 30 }),
      auth.passcodes.create(admin, ACCOUNT, { name: '', expiry: 30 }),
      auth.passcodes.update(admin, ACCOUNT, 'no-such-id', { name: 'Nothing' }),
      auth.passcodes.update(member, ACCOUNT, passcode.id, { name: 'Nothing' }),
      auth.passcodes.rotate(admin, ACCOUNT, 'no-such-id', { overlapMinutes: 0 }),
      auth.passcodes.delete(admin, ACCOUNT, 'no-such-id'),
      auth.passcodes.delete(member, ACCOUNT, passcode.id),
      auth.userPasscodes.reset(admin, ACCOUNT, 'u_nobody'),
      auth.userPasscodes.revoke(admin, ACCOUNT, 'u_nobody'),
      auth.userPasscodes.reveal(member, ACCOUNT),
      auth.userPasscodes.grant(member, ACCOUNT, 'u_member', { validity: { type: 'infinite' } }),
      auth.accounts.setAcceptedPasscodes(member, ACCOUNT, 'user'),
      auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'nonsense' as 'user'),
    ]
    for (const refusal of refusals) await expect(refusal).rejects.toThrow()
    await auth.userPasscodes.grant(admin, ACCOUNT, 'u_member', { validity: { type: 'infinite' } })
    await expect(auth.userPasscodes.grant(admin, ACCOUNT, 'u_member', { validity: { type: 'infinite' } })).rejects.toThrow()
    const { records } = await auth.audit.list(admin, ACCOUNT)
    expect(records.map((record) => record.action)).toEqual(['user_passcode.granted', 'passcode.created'])
  })

  it('writes one record per change of the accepted passcodes, and none (no event either) when the setting already has that value', async () => {
    const events: string[] = []
    const { auth } = setup({ store: opened.store, onEvent: (event) => void events.push(event.type) })
    const actions = async () => (await auth.audit.list(admin, ACCOUNT)).records.map((record) => record.action)
    await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'account')
    expect(await actions()).toEqual([])
    await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'both')
    await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'both')
    expect(await actions()).toEqual(['account.accepted_passcodes_changed'])
    expect(events.filter((type) => type === 'account.accepted_passcodes_changed')).toHaveLength(1)
    expect(await auth.accounts.getAcceptedPasscodes(ACCOUNT)).toBe('both')
  })

  it('SPEC 5.38 writes one record per disable and per enable, and none when the passcode is already in that state', async () => {
    const { auth, clock } = setup({ store: opened.store })
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Acme sync', expiry: 30 })
    const actions = async () => (await auth.audit.list(admin, ACCOUNT)).records.map((record) => record.action)

    await auth.passcodes.disable(settingsWriter, ACCOUNT, passcode.id)
    clock.advance(60_000)
    await auth.passcodes.disable(admin, ACCOUNT, passcode.id)
    expect(await actions()).toEqual(['passcode.disabled', 'passcode.created'])

    await auth.passcodes.enable(admin, ACCOUNT, passcode.id)
    await auth.passcodes.enable(admin, ACCOUNT, passcode.id)
    expect(await actions()).toEqual(['passcode.enabled', 'passcode.disabled', 'passcode.created'])

    const [enabled, disabled] = (await auth.audit.list(admin, ACCOUNT)).records
    expect(disabled).toMatchObject({
      actor: { type: 'user', userId: 'u_writer', role: 'member' },
      target: { type: 'passcode', id: passcode.id, name: 'Acme sync' },
      changes: { disabled: { before: false, after: true } },
    })
    expect(enabled).toMatchObject({
      actor: { type: 'user', userId: 'u_admin', role: 'admin' },
      target: { type: 'passcode', id: passcode.id, name: 'Acme sync' },
      changes: { disabled: { before: true, after: false } },
    })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true })
  })

  it('SPEC 5.39 records a description with the passcode, and an edit of the description alone as an update', async () => {
    const { auth } = setup({ store: opened.store })
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Plain', expiry: 30 })
    const { passcode: described } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Described', expiry: 30, description: 'Nightly export' })
    await auth.passcodes.update(admin, ACCOUNT, passcode.id, { description: 'Now described' })
    await auth.passcodes.update(admin, ACCOUNT, described.id, { description: '' })

    const records = (await auth.audit.list(admin, ACCOUNT)).records.reverse()
    expect(records.map((record) => record.action)).toEqual(['passcode.created', 'passcode.created', 'passcode.updated', 'passcode.updated'])
    expect(records[0]!.changes).not.toHaveProperty('description')
    expect(records[1]!.changes).toMatchObject({ description: { before: null, after: 'Nightly export' } })
    expect(records[2]!.changes).toEqual({ description: { before: null, after: 'Now described' } })
    expect(records[3]!.changes).toEqual({ description: { before: 'Nightly export', after: null } })
  })

  it("records an edit's before as the store found it: two concurrent edits chain their values", async () => {
    const { auth } = setup({ store: opened.store })
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Acme sync', expiry: 30 })
    // Both edits read the passcode before either writes: the second record's before is
    // the first edit's after, not what the second edit read.
    await Promise.all([
      auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Acme nightly', description: 'First' }),
      auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Acme hourly', expiry: 10 }),
    ])

    const [, first, second] = (await auth.audit.list(admin, ACCOUNT)).records.reverse()
    expect(first!.changes).toEqual({
      name: { before: 'Acme sync', after: 'Acme nightly' },
      description: { before: null, after: 'First' },
    })
    expect(second!.changes).toMatchObject({ name: { before: 'Acme nightly', after: 'Acme hourly' }, expiry: { before: 30, after: 10 } })
    expect(second!.changes).not.toHaveProperty('description')
    expect(second!.target).toEqual({ type: 'passcode', id: passcode.id, name: 'Acme hourly' })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 3 })
  })

  it("records a rotation's before and name as the store found them, not as the rotation read them", async () => {
    const held = holdingFirst(opened.store, 'rotateAccountPasscode')
    const { auth } = setup({ store: held.store })
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Acme sync', expiry: 30 })
    // This rotation reads the passcode now and writes only once the others are done.
    const late = auth.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: 30 })
    await held.reached
    const first = await auth.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: 60 })
    await auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Acme nightly' })
    held.release()
    await late

    const [, rotated, renamed, again] = (await auth.audit.list(admin, ACCOUNT)).records.reverse()
    expect([rotated!.action, renamed!.action, again!.action]).toEqual(['passcode.rotated', 'passcode.updated', 'passcode.rotated'])
    const firstEnds = first.passcode.previousValueEndsAt!.getTime()
    expect(rotated!.changes).toEqual({ previousValueEndsAt: { before: null, after: firstEnds } })
    // The second rotation replaced the end the first one set, under the name it had then.
    expect(again!.changes).toEqual({ previousValueEndsAt: { before: firstEnds, after: firstEnds - 30 * 60_000 } })
    expect(again!.target).toEqual({ type: 'passcode', id: passcode.id, name: 'Acme nightly' })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 4 })
  })

  it("records a delete's fields and name as the store found them, not as the delete read them", async () => {
    const held = holdingFirst(opened.store, 'deleteAccountPasscode')
    const { auth } = setup({ store: held.store })
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Acme sync', expiry: 30 })
    // The delete reads the passcode, then an edit writes before the delete does.
    const deleting = auth.passcodes.delete(admin, ACCOUNT, passcode.id)
    await held.reached
    await auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Acme nightly', description: 'Nightly export', partners: ['Acme'] })
    held.release()
    await deleting

    const [, edit, removal] = (await auth.audit.list(admin, ACCOUNT)).records.reverse()
    expect(edit!.action).toBe('passcode.updated')
    expect(removal).toMatchObject({ action: 'passcode.deleted', target: { type: 'passcode', id: passcode.id, name: 'Acme nightly' } })
    expect(removal!.changes).toEqual({
      name: { before: 'Acme nightly', after: null },
      expiry: { before: 30, after: null },
      expiresAt: { before: passcode.expiresAt!.getTime(), after: null },
      partners: { before: ['acme'], after: null },
      description: { before: 'Nightly export', after: null },
    })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 3 })
  })

  it("records a user passcode reset's before as the store found it, not as the reset read it", async () => {
    const held = holdingFirst(opened.store, 'resetUserPasscode')
    const { auth, clock } = setup({ store: held.store })
    const granted = await auth.userPasscodes.grant(admin, ACCOUNT, 'u_member', { validity: { type: 'finite', days: 30 } })
    const resetting = auth.userPasscodes.reset(admin, ACCOUNT, 'u_member')
    await held.reached
    clock.advance(DAY)
    const other = await auth.userPasscodes.reset(admin, ACCOUNT, 'u_member')
    held.release()
    const late = await resetting

    const [, first, second] = (await auth.audit.list(admin, ACCOUNT)).records.reverse()
    const grantedEnds = granted.expiresAt.getTime()
    expect(first!.changes).toEqual({ expiresAt: { before: grantedEnds, after: other.expiresAt.getTime() } })
    expect(second!.changes).toEqual({ expiresAt: { before: other.expiresAt.getTime(), after: late.expiresAt.getTime() } })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 3 })
  })

  it("records a leak report's target name and disable as the store found them, not as the report's lookup saw them", async () => {
    const held = holdingFirst(opened.store, 'reportLeak')
    const { auth } = setup({ store: held.store, mailer: scriptedMailer(), recipients: everyone })
    const { passcode, value } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Acme sync', expiry: 30 })
    const { passcode: other, value: otherValue } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Other', expiry: 30 })
    // The report finds the passcode enabled and named "Acme sync"; before it acts, an admin renames and disables it.
    const reporting = auth.leaks.report([value], { source: 'github' })
    await held.reached
    await auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Acme nightly' })
    await auth.passcodes.disable(admin, ACCOUNT, passcode.id)
    held.release()
    await reporting
    // Nothing came between the lookup and the act here: the report disabled it.
    await auth.leaks.report([otherValue], { source: 'github' })

    const leaks = (await auth.audit.list(admin, ACCOUNT, { action: 'passcode.leak_reported' })).records.reverse()
    expect(leaks).toHaveLength(2)
    expect(leaks[0]!.target).toEqual({ type: 'passcode', id: passcode.id, name: 'Acme nightly' })
    expect(leaks[0]!.changes).not.toHaveProperty('disabled')
    expect(leaks[1]!.target).toEqual({ type: 'passcode', id: other.id, name: 'Other' })
    expect(leaks[1]!.changes).toMatchObject({ disabled: { before: false, after: true } })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true })
  })

  it("records an accepted passcodes change's before as the store found it, not as the change read it", async () => {
    const held = holdingFirst(opened.store, 'setAcceptedPasscodes')
    const { auth } = setup({ store: held.store })
    const late = auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'user')
    await held.reached
    await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'both')
    held.release()
    await late

    const records = (await auth.audit.list(admin, ACCOUNT)).records.reverse()
    expect(records.map((record) => record.changes)).toEqual([
      { acceptedPasscodes: { before: 'account', after: 'both' } },
      { acceptedPasscodes: { before: 'both', after: 'user' } },
    ])
    expect(await auth.accounts.getAcceptedPasscodes(ACCOUNT)).toBe('user')
  })

  it('lists for admins only, newest first, paged, filtered by action, target and time', async () => {
    const { auth, clock } = setup({ store: opened.store })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push((await auth.passcodes.create(admin, ACCOUNT, { name: `P${i}`, expiry: 30 })).passcode.id)
      clock.advance(DAY)
    }
    await auth.passcodes.rotate(admin, ACCOUNT, ids[2]!, { overlapMinutes: 0 })
    await auth.passcodes.create(admin, 'acc_other', { name: 'Elsewhere', expiry: 30 })

    await expect(auth.audit.list(member, ACCOUNT)).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' })
    await expect(auth.audit.list(settingsWriter, ACCOUNT)).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' })
    expect(() => auth.audit.export(member, ACCOUNT)).toThrow(expect.objectContaining({ code: 'ERR_FORBIDDEN' }))

    const first = await auth.audit.list(admin, ACCOUNT, { limit: 4 })
    expect(first.records.map((record) => record.sequence)).toEqual([6, 5, 4, 3])
    const second = await auth.audit.list(admin, ACCOUNT, { limit: 4, cursor: first.cursor! })
    expect(second.records.map((record) => record.sequence)).toEqual([2, 1])
    expect(second.cursor).toBeNull()
    await expect(auth.audit.list(admin, ACCOUNT, { cursor: 'garbage' })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'cursor' })
    await expect(auth.audit.list(admin, ACCOUNT, { action: 'passcode.exploded' as 'passcode.created' })).rejects.toMatchObject({
      field: 'options.action',
    })

    expect((await auth.audit.list(admin, ACCOUNT, { action: 'passcode.rotated' })).records.map((record) => record.sequence)).toEqual([6])
    expect((await auth.audit.list(admin, ACCOUNT, { target: ids[2]! })).records.map((record) => record.sequence)).toEqual([6, 3])
    const from = new Date(Date.UTC(2026, 0, 2))
    const to = new Date(Date.UTC(2026, 0, 4))
    expect((await auth.audit.list(admin, ACCOUNT, { from, to })).records.map((record) => record.sequence)).toEqual([3, 2])
    expect((await auth.audit.list(admin, 'acc_other')).records).toHaveLength(1)
    await auth.userPasscodes.grant(admin, ACCOUNT, member.userId, { validity: { type: 'infinite' } })
    await auth.userPasscodes.reveal(member, ACCOUNT)
    expect((await auth.audit.list(admin, ACCOUNT, { actor: member.userId })).records.map((record) => record.action)).toEqual([
      'user_passcode.revealed',
    ])
    expect((await auth.audit.list(admin, ACCOUNT, { actor: admin.userId, limit: 2 })).records.map((record) => record.sequence)).toEqual([7, 6])
    await expect(auth.audit.list(admin, ACCOUNT, { actor: '' })).rejects.toMatchObject({ field: 'options.actor' })
  })

  it('prunes by age, appends a record of it, and the chain still verifies from the oldest kept record and against an older anchor', async () => {
    const { auth, clock } = service()
    for (let i = 0; i < 6; i++) {
      await auth.passcodes.create(admin, ACCOUNT, { name: `P${i}`, expiry: 'forever' })
      clock.advance(100 * DAY)
    }
    const before = await auth.audit.verify(ACCOUNT)
    if (!before.ok) throw new Error('the chain should verify')
    const first = (await all(auth))[0]!
    // Now day 600: records of days 0, 100 are older than 400 days.
    const report = await auth.audit.prune()
    expect(report).toEqual({ removed: 2, before: new Date(Date.UTC(2026, 0, 1) + 200 * DAY) })
    const { records } = await auth.audit.list(admin, ACCOUNT)
    expect(records.map((record) => record.sequence)).toEqual([7, 6, 5, 4, 3])
    expect(records[0]).toMatchObject({
      action: 'audit.pruned',
      actor: { type: 'system' },
      target: { type: 'account' },
      keyId: AUDIT_KEY.id,
      changes: { removed: { before: null, after: 2 }, through: { before: 0, after: 2 } },
    })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 5, head: { sequence: 7 } })
    // The head kept before the prune is still in the chain; the first record is gone, which the prune record covers.
    expect(await auth.audit.verify(ACCOUNT, { anchor: before.head })).toMatchObject({ ok: true })
    expect(await auth.audit.verify(ACCOUNT, { anchor: { sequence: 1, hash: first.hash } })).toMatchObject({ ok: true })
    await auth.passcodes.create(admin, ACCOUNT, { name: 'After', expiry: 30 })
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 6 })
    expect((await auth.audit.prune({ keepDays: 1 })).removed).toBe(4)
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 3, head: { sequence: 9 } })
    expect(await auth.audit.verify(ACCOUNT, { anchor: before.head })).toMatchObject({ ok: true })
  })

  it('takes an anchor as a head, { sequence, hash }, and refuses anything else naming the field', async () => {
    const { auth } = service()
    await auth.passcodes.create(admin, ACCOUNT, { name: 'Anchored', expiry: 30 })
    const result = await auth.audit.verify(ACCOUNT)
    if (!result.ok) throw new Error('the chain should verify')
    expect(await auth.audit.verify(ACCOUNT, { anchor: result.head })).toMatchObject({ ok: true, records: 1 })
    // A head that is not this chain's: the record at its sequence differs, or is not there yet.
    expect(await auth.audit.verify(ACCOUNT, { anchor: { sequence: 1, hash: 'a'.repeat(64) } })).toEqual({ ok: false, at: 1, reason: 'changed' })
    expect(await auth.audit.verify(ACCOUNT, { anchor: { sequence: 2, hash: 'a'.repeat(64) } })).toEqual({ ok: false, at: 2, reason: 'tail_removed' })
    const bad = [
      result.head.hash,
      { sequence: -1, hash: result.head.hash },
      { sequence: 1.5, hash: result.head.hash },
      { sequence: 1, hash: 'A'.repeat(64) },
    ]
    for (const anchor of bad) {
      await expect(auth.audit.verify(ACCOUNT, { anchor } as never)).rejects.toMatchObject({
        code: 'ERR_INVALID_INPUT',
        field: expect.stringMatching(/^anchor\./),
      })
    }
  })

  it('keys records from the first write after keys are configured; a plain record after a keyed one is a break', async () => {
    const plain = setup({ store: opened.store })
    await plain.auth.passcodes.create(admin, ACCOUNT, { name: 'Before keys', expiry: 30 })
    const keyed = setup({ store: opened.store, auditKeys: [AUDIT_KEY] })
    await keyed.auth.passcodes.create(admin, ACCOUNT, { name: 'After keys', expiry: 30 })
    expect(await keyed.auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 2, unkeyed: 1 })
    expect((await all(keyed.auth)).map((record) => record.keyId)).toEqual([null, AUDIT_KEY.id])
    // A service without the key cannot vouch for the keyed record.
    expect(await plain.auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 2, reason: 'unknown_key' })
    await expect(plain.auth.audit.list(admin, ACCOUNT)).rejects.toMatchObject({ code: 'ERR_AUDIT_BROKEN', at: 2, reason: 'unknown_key' })
    // The service without keys writes on: a plain record after a keyed one.
    await plain.auth.passcodes.create(admin, ACCOUNT, { name: 'Keys dropped', expiry: 30 })
    expect(await keyed.auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 3, reason: 'unkeyed' })
    await expect(keyed.auth.audit.list(admin, ACCOUNT)).rejects.toBeInstanceOf(AuditChainBrokenError)
    const exported: string[] = []
    await expect(
      (async () => {
        for await (const line of keyed.auth.audit.export(admin, ACCOUNT)) exported.push(line)
      })(),
    ).rejects.toMatchObject({ code: 'ERR_AUDIT_BROKEN', at: 3 })
    expect(exported.map((line) => (JSON.parse(line) as AuditRecord).sequence)).toEqual([1, 2])
  })
})

describe('SPEC 5.40 the management API names the request in the record', () => {
  it('keeps a well-formed X-Request-Id and drops any other', async () => {
    const { createManagementApi } = await import('../../src/dashboard/index')
    const { auth } = setup()
    const api = createManagementApi(auth)
    const session = { accountId: ACCOUNT, actor: admin }
    const post = (name: string, requestId: string | undefined) =>
      api.handle(
        {
          method: 'POST',
          path: '/passcodes',
          header: (header) => (header === 'x-request-id' ? requestId : header === 'content-type' ? 'application/json' : undefined),
          body: async () => ({ parsed: { name, expiry: 30 } }),
        },
        () => session,
      )
    expect((await post('With id', 'req-42')).statusCode).toBe(201)
    expect((await post('Odd id', 'has spaces and\nnewline')).statusCode).toBe(201)
    expect((await post('No id', undefined)).statusCode).toBe(201)
    const { records } = await auth.audit.list(admin, ACCOUNT)
    expect(records.map((record) => [record.target.type === 'passcode' && record.target.name, record.requestId])).toEqual([
      ['No id', null],
      ['Odd id', null],
      ['With id', 'req-42'],
    ])
  })
})

describe('SPEC 5.44 the auditKeys option', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('takes keys of 32 bytes or more, as bytes or base64url text; refuses the others naming the key, never its value', () => {
    const create = (auditKeys: unknown) => () => createPasscodeAuth({ store: memoryStore(), auditKeys: auditKeys as never })
    const text = Buffer.from(new Uint8Array(32).fill(5)).toString('base64url')
    expect(create([{ id: 'a1', key: text }])).not.toThrow()
    expect(
      create([
        { id: 'a2', key: new Uint8Array(48) },
        { id: 'a1', key: text },
      ]),
    ).not.toThrow()
    const short = Buffer.from(new Uint8Array(31).fill(5)).toString('base64url')
    for (const [keys, path] of [
      [[{ id: 'a1', key: short }], 'auditKeys.0.key'],
      [[{ id: 'a1', key: `${text}!` }], 'auditKeys.0.key'],
      [[{ id: 'a1', key: new Uint8Array(16) }], 'auditKeys.0.key'],
      [[{ id: '', key: text }], 'auditKeys.0.id'],
      [[], 'auditKeys'],
      [
        [
          { id: 'a1', key: text },
          { id: 'a1', key: new Uint8Array(32) },
        ],
        'auditKeys',
      ],
    ] as const) {
      let error: unknown
      try {
        create(keys)()
      } catch (caught) {
        error = caught
      }
      expect(error, JSON.stringify(path)).toBeInstanceOf(InvalidOptionsError)
      expect((error as InvalidOptionsError).message).toContain(path)
      expect((error as InvalidOptionsError).message).not.toContain(short)
      expect((error as InvalidOptionsError).message).not.toContain(text)
    }
  })

  it('reports plain audit hashes once with NODE_ENV=production, through onEvent, with no secret', () => {
    vi.stubEnv('NODE_ENV', 'production')
    const events: AuditEvent[] = []
    createPasscodeAuth({ store: memoryStore(), pepper: PEPPER, onEvent: (event) => void events.push(event) })
    expect(events).toEqual([{ type: 'config.no_audit_key', at: expect.any(Date), message: expect.stringContaining('set the auditKeys option') }])
    const keyed: AuditEvent[] = []
    createPasscodeAuth({ store: memoryStore(), pepper: PEPPER, auditKeys: [AUDIT_KEY], onEvent: (event) => void keyed.push(event) })
    expect(keyed).toEqual([])
    vi.stubEnv('NODE_ENV', 'development')
    const development: AuditEvent[] = []
    createPasscodeAuth({ store: memoryStore(), pepper: PEPPER, onEvent: (event) => void development.push(event) })
    expect(development).toEqual([])
  })
})
