import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, migratedDataFolder } from './cli-process'

/**
 * `audit list|export|verify|prune` on a data folder, in this process: the records the
 * other commands leave, paging, JSON lines, and a break made with SQL that `verify`
 * names and exits 6 for.
 */

let folder: { dir: string; remove(): void }
const run = (...args: string[]) => cli(args, { dataDir: folder.dir })
/**
 * Each command opens the data folder's database in this process: a fraction of a second
 * on an idle machine, several seconds on a loaded one (two busy loops beside the suite
 * made the verify case pass vitest's 30 s). A bound on the machine, not on the command,
 * for the setup and the cases that run many commands.
 */
const CASE_BOUND_MS = 120_000

beforeAll(async () => {
  folder = await migratedDataFolder()
  expect((await run('passcodes', 'create', '--account', 'acc_1', '--name', 'Acme', '--expiry', '90')).code).toBe(0)
  expect((await run('passcodes', 'edit', 'Acme', '--account', 'acc_1', '--name', 'Acme sync')).code).toBe(0)
  expect((await run('passcodes', 'rotate', 'Acme sync', '--account', 'acc_1', '--overlap', '0')).code).toBe(0)
}, CASE_BOUND_MS)

afterAll(() => folder?.remove())

describe('passcode-auth audit', () => {
  it(
    'lists what the commands did, newest first, with the next page',
    async () => {
      const page = await run('audit', 'list', '--account', 'acc_1', '--limit', '2')
      expect(page.code).toBe(0)
      const lines = page.stdout.trim().split('\n')
      expect(lines[0]).toMatch(/^#3 \d{4}-\d\d-\d\d \d\d:\d\d UTC passcode\.rotated passcode "Acme sync" \([0-9a-f-]+\) by operator \(admin\)/)
      expect(lines[1]).toMatch(/^#2 .* passcode\.updated .* \[name: "Acme" -> "Acme sync"\]$/)
      const cursor = /^More: --cursor (\S+)$/.exec(lines[2]!)?.[1]
      const rest = await run('audit', 'list', '--account', 'acc_1', '--cursor', cursor!, '--json')
      expect(JSON.parse(rest.stdout)).toMatchObject({ records: [{ sequence: 1, action: 'passcode.created' }], cursor: null })
      const member = await run('audit', 'list', '--account', 'acc_1', '--role', 'member')
      expect(member.code).toBe(3)
      const byOperator = await run('audit', 'list', '--account', 'acc_1', '--actor', 'operator', '--json')
      expect(JSON.parse(byOperator.stdout).records).toHaveLength(3)
      const bySomeoneElse = await run('audit', 'list', '--account', 'acc_1', '--actor', 'u_nobody', '--json')
      expect(JSON.parse(bySomeoneElse.stdout)).toEqual({ records: [], cursor: null })
    },
    CASE_BOUND_MS,
  )

  it('exports JSON lines, oldest first, with no passcode value', async () => {
    const result = await run('audit', 'export', '--account', 'acc_1', '--action', 'passcode.created', '--action', 'passcode.rotated')
    expect(result.code).toBe(0)
    const records = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sequence: number; action: string })
    expect(records.map((record) => [record.sequence, record.action])).toEqual([
      [1, 'passcode.created'],
      [3, 'passcode.rotated'],
    ])
    expect(result.stdout).not.toMatch(/psc_/)
    expect((await run('audit', 'export', '--account', 'acc_1', '--from', 'yesterday')).code).toBe(2)
  })

  it('signs the trail with the audit key the data folder generated with its other secrets', () => {
    const secrets = JSON.parse(readFileSync(path.join(folder.dir, 'secrets.json'), 'utf8')) as { auditKeys: string }
    expect(secrets.auditKeys).toMatch(/^a1:[A-Za-z0-9_-]{43}$/)
  })

  it(
    'verifies, prints the head to keep, and exits 6 once a row was changed or added with SQL, saying so in list and export too',
    async () => {
      const good = await run('audit', 'verify', '--account', 'acc_1')
      expect(good.code).toBe(0)
      expect(good.stdout).toMatch(/^The audit trail of acc_1 verifies: 3 records, newest #3\.$/m)
      const anchor = /--anchor: (3:[0-9a-f]{64})$/m.exec(good.stdout)?.[1]
      expect(anchor).toBeDefined()
      expect((await run('audit', 'verify', '--account', 'acc_1', '--anchor', anchor!)).code).toBe(0)
      expect((await run('audit', 'verify', '--account', 'acc_1', '--anchor', anchor!.slice(2))).code).toBe(2)

      const db = await PGlite.create(path.join(folder.dir, 'pgdata'))
      // Issue 41, item 1: a row forged below the chain's start.
      await db.query(
        `INSERT INTO passcode_auth.audit_records (account_id, sequence, at, actor, action, target, target_id, changes, request_id, client_address, previous_hash, hash, version, key_id)
       SELECT account_id, 0, at, replace(actor, 'operator', 'forger'), action, target, target_id, changes, request_id, client_address, previous_hash, hash, version, key_id
       FROM passcode_auth.audit_records WHERE account_id = 'acc_1' AND sequence = 1`,
      )
      await db.close()
      const outside = await run('audit', 'verify', '--account', 'acc_1')
      expect(outside.code).toBe(6)
      expect(outside.stdout).toBe(
        'The audit trail of acc_1 does NOT verify: row #0 lies outside the chain (at or below its start, past its head, or a sequence repeated) (outside).\n',
      )
      for (const command of [
        ['audit', 'list'],
        ['audit', 'export'],
      ]) {
        const refused = await run(...command, '--account', 'acc_1')
        expect(refused.code).toBe(6)
        expect(refused.stdout).not.toContain('forger')
        expect(refused.stderr).toContain('The audit trail of this account does not verify at record 0 (outside)')
      }

      const again = await PGlite.create(path.join(folder.dir, 'pgdata'))
      await again.query(`DELETE FROM passcode_auth.audit_records WHERE sequence = 0`)
      await again.query(`UPDATE passcode_auth.audit_records SET changes = replace(changes, 'Acme sync', 'Other') WHERE sequence = 2`)
      await again.close()
      const broken = await run('audit', 'verify', '--account', 'acc_1', '--json')
      expect(broken.code).toBe(6)
      expect(JSON.parse(broken.stdout)).toEqual({ ok: false, at: 2, reason: 'changed' })
      const anchored = await run('audit', 'verify', '--account', 'acc_1', '--anchor', anchor!)
      expect(anchored.stdout).toContain('record #2 was changed: its content no longer matches its hash (changed)')
    },
    CASE_BOUND_MS,
  )

  it(
    'exits 6 when every row and the head row of an account that keeps a passcode were deleted with SQL (SPEC 5.44), 0 for an account never written',
    async () => {
      expect((await run('passcodes', 'create', '--account', 'acc_lost', '--name', 'Kept', '--expiry', '90')).code).toBe(0)
      expect((await run('audit', 'verify', '--account', 'acc_lost')).code).toBe(0)
      const db = await PGlite.create(path.join(folder.dir, 'pgdata'))
      await db.query(`DELETE FROM passcode_auth.audit_records WHERE account_id = 'acc_lost'`)
      await db.query(`DELETE FROM passcode_auth.audit_heads WHERE account_id = 'acc_lost'`)
      await db.close()
      const lost = await run('audit', 'verify', '--account', 'acc_lost')
      expect(lost.code).toBe(6)
      expect(lost.stdout).toBe(
        "The audit trail of acc_lost does NOT verify: the chain's head row is missing, though the account has records (from #1) or data its writes left (head_missing).\n",
      )
      const json = await run('audit', 'verify', '--account', 'acc_lost', '--json')
      expect([json.code, JSON.parse(json.stdout)]).toEqual([6, { ok: false, at: 1, reason: 'head_missing' }])
      const never = await run('audit', 'verify', '--account', 'acc_never')
      expect(never.code).toBe(0)
      expect(never.stdout).toMatch(/^The audit trail of acc_never verifies: 0 records, newest #0\.$/m)
    },
    CASE_BOUND_MS,
  )

  it('prints a key line for PASSCODE_AUTH_AUDIT_KEYS', async () => {
    const result = await cli(['keys', 'generate', '--audit', '--id', 'a2'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^a2:[A-Za-z0-9_-]{43}\n$/)
    expect((await cli(['keys', 'generate', '--audit', '--pepper'])).code).toBe(2)
  })

  it('prunes by age', async () => {
    const result = await run('audit', 'prune', '--keep-days', '1')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Deleted 0 audit records older than /)
    expect((await run('audit', 'prune', '--keep-days', '0')).code).toBe(2)
  })
})
