import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { freshPglite } from '../helpers/pglite'
import { admin, member, setup } from '../helpers/service'

const ACCOUNT = 'acc_head_cache'
const AUDIT_KEY = { id: 'k1', key: new Uint8Array(32).fill(7) }

// Two stores on one schema are two processes: each keeps the last head it appended after.
describe('an …Appending statement tries the head it last placed a record after', () => {
  let db: PGlite
  beforeAll(async () => {
    db = await freshPglite()
    await migrate(db, { schema: 'head_cache' })
  })
  afterAll(async () => {
    await db.close()
  })
  const instance = () => setup({ store: postgresStore(db, { schema: 'head_cache', listen: false }), auditKeys: [AUDIT_KEY] }).auth

  it('keeps one verified chain when another process moved the head in between, and when its own locked writes did', async () => {
    const [a, b] = [instance(), instance()]
    await a.userPasscodes.grant(admin, ACCOUNT, 'u_member', { validity: { type: 'finite', days: 30 } })
    // a's reveals: the first reads the head, the second tries the one it placed after.
    await a.userPasscodes.reveal(member, ACCOUNT)
    await a.userPasscodes.reveal(member, ACCOUNT)
    // b moves the head: a's remembered head is stale, its statement undoes itself and a reads the head.
    await b.userPasscodes.reveal(member, ACCOUNT)
    await a.userPasscodes.reveal(member, ACCOUNT)
    // a's own locked write (a reset locks the head) also moves it past what a remembers.
    await a.userPasscodes.reset(admin, ACCOUNT, 'u_member')
    await a.userPasscodes.reveal(member, ACCOUNT)
    await b.userPasscodes.revoke(admin, ACCOUNT, 'u_member')
    expect(await a.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 8 })
    expect(await b.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 8 })
    const page = await a.audit.list(admin, ACCOUNT, { limit: 20 })
    expect(page.records.map((record) => record.sequence)).toEqual([8, 7, 6, 5, 4, 3, 2, 1])
    expect(page.records.map((record) => record.action).reverse()).toEqual([
      'user_passcode.granted',
      'user_passcode.revealed',
      'user_passcode.revealed',
      'user_passcode.revealed',
      'user_passcode.revealed',
      'user_passcode.reset',
      'user_passcode.revealed',
      'user_passcode.revoked',
    ])
  })
})
