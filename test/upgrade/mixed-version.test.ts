import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../src/index'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../helpers/postgres'
import { buildPreviousVersion, previousRef } from './previous-version'

/**
 * SPEC §5.54, docs/upgrading.md: a fleet running the previous version and the current
 * one on the migrated schema refuses no valid passcode and loses no email, audit record
 * or usage count. The previous version is built from this repository's git history
 * (test/upgrade/previous-version.ts: the newest release tag, or a named commit while there
 * is none; a shallow clone fails with how to fetch the history).
 *
 * The rolling upgrade as docs/upgrading.md describes it, on a throw-away PostgreSQL:
 * 1. an instance of the previous version starts (its own `migrate()`), and passcodes
 *    are made through it; verifications start;
 * 2. the current version's `migrate()` runs while that instance serves them;
 * 3. an instance of the current version and a second one of the previous version
 *    (started on the migrated schema, as a restart during the roll would) join;
 * 4. for a few seconds: verifications of every valid passcode on every instance, and
 *    creates, rotations (with an overlap) and deletions through each version in turn;
 *    each instance runs the expiry notifier.
 * Then: no valid passcode refused; every deleted one refused by every instance within
 * 10 s; every passcode alive and expiring within 30 days emailed exactly once for its
 * expiry; one audit record per change and per email of a passcode still there, each
 * account's chain intact; once the instances
 * stopped (flushing their counts), the usage counts of successes equal the 200s answered.
 */

const HERE = fileURLToPath(new URL('.', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ACCOUNTS = ['acct_upgrade_a', 'acct_upgrade_b']
const TRAFFIC_MS = 6_000
const admin = { userId: 'u_upgrade_admin', role: 'admin' } as const

const postgres = postgresAvailability()
const title = `SPEC 5.54 the previous and the current version on one migrated PostgreSQL${postgres.available ? '' : ` (skipped: ${postgres.reason})`}`

interface Instance {
  readonly name: string
  readonly child: ChildProcess
  readonly port: number
  stderr: string
}

interface Credential {
  readonly accountId: string
  readonly id: string
  readonly value: string
}

const children: ChildProcess[] = []
let database: TestPostgres | undefined

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await database?.stop()
})

/** Starts one instance of a version; resolves once it listens (60 s bound: it runs `migrate()` first). */
function startInstance(name: string, modules: { index: string; postgres: string }, env: Record<string, string>, sent: string[]): Promise<Instance> {
  const child = fork(join(HERE, 'mixed-version-instance.ts'), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, UPGRADE_INDEX: modules.index, UPGRADE_POSTGRES: modules.postgres },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  children.push(child)
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000)
  })
  child.on('message', (message: { type: string; sent?: string[] }) => {
    if (message.type === 'sent') sent.push(...message.sent!)
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not listen within 60 s: ${stderr}`)), 60_000)
    child.on('message', (message: { type: string; port?: number }) => {
      if (message.type !== 'listening') return
      clearTimeout(timer)
      resolve({ name, child, port: message.port!, stderr })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code} before listening: ${stderr}`))
    })
  })
}

/** Stops an instance with SIGTERM (it flushes its counts) and waits for its exit, 20 s at most. */
async function stopInstance(instance: Instance): Promise<number | null> {
  const { child } = instance
  if (child.exitCode !== null) return child.exitCode
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  const code = await exited
  clearTimeout(timer)
  return code
}

const verify = async (instance: Instance, credential: Credential): Promise<number> => {
  const response = await fetch(`http://127.0.0.1:${instance.port}/verify`, {
    headers: { 'x-service-account-id': credential.accountId, 'x-service-passcode': credential.value },
    signal: AbortSignal.timeout(10_000),
  })
  await response.arrayBuffer()
  return response.status
}

async function manage(instance: Instance, body: Record<string, unknown>): Promise<{ id?: string; value?: string }> {
  const response = await fetch(`http://127.0.0.1:${instance.port}/manage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  const result = (await response.json()) as { id?: string; value?: string; code?: string }
  if (response.status !== 200) throw new Error(`${instance.name}: ${String(body.op)} answered ${response.status} ${result.code}`)
  return result
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!

describe('SPEC 5.54 the previous version', () => {
  it('is built from git history: a shallow clone fails and says how to fetch it', () => {
    const clone = mkdtempSync(join(tmpdir(), 'passcode-auth-shallow-'))
    try {
      execFileSync('git', ['clone', '--quiet', '--no-checkout', '--depth', '1', `file://${ROOT}`, clone], { stdio: 'pipe' })
      expect(() => previousRef(clone)).toThrow(/this clone is shallow: run `git fetch --unshallow --tags`/)
    } finally {
      rmSync(clone, { recursive: true, force: true })
    }
    expect(previousRef().commit).toMatch(/^[0-9a-f]{40}$/)
  })
})

describe.skipIf(!postgres.available)(title, () => {
  it('refuses no valid passcode and loses no email, audit record or usage count while both versions run', async () => {
    const previous = previousRef()
    // The build (cached per commit) and the database at the same time.
    const [folder, started] = await Promise.all([buildPreviousVersion(previous.commit), startTestPostgres()])
    database = started
    const env = { UPGRADE_DATABASE_URL: database.connectionString, UPGRADE_PEPPER: randomBytes(32).toString('base64url') }
    const previousModules = { index: join(folder, 'dist/index.js'), postgres: join(folder, 'dist/postgres.js') }
    const currentModules = { index: join(ROOT, 'src/index.ts'), postgres: join(ROOT, 'src/stores/postgres/index.ts') }
    const sent: string[] = []

    // 1. The previous version alone, on the schema it made.
    const old = await startInstance(`previous (${previous.label})`, previousModules, env, sent)
    const instances: Instance[] = [old]
    // The values that must be accepted, and each passcode's newest value.
    const valid: Credential[] = []
    const newest = new Map<string, Credential>()
    const add = (credential: Credential) => {
      valid.push(credential)
      newest.set(credential.id, credential)
    }
    const deleted: Credential[] = []
    const writes = { create: 0, rotate: 0, delete: 0 }
    for (const [n, accountId] of ACCOUNTS.entries()) {
      for (let i = 0; i < 4; i++) {
        const name = `seed ${n}.${i}`
        const { id, value } = await manage(old, { op: 'create', accountId, name, expiryDays: i % 2 === 0 ? 1 : 90 })
        add({ accountId, id: id!, value: value! })
        writes.create += 1
      }
    }

    // Verifications from now on, four at a time, on every instance up. A refusal counts
    // only when the passcode was valid when the request left and still is (a deletion
    // takes it out of `valid` before it is sent).
    let running = true
    let answered200 = 0
    const validRefusals: string[] = []
    const perInstance = new Map<string, number>()
    const traffic = Array.from({ length: 4 }, async () => {
      while (running) {
        const credential = pick(valid)
        const instance = pick(instances)
        const status = await verify(instance, credential)
        if (status === 200) {
          answered200 += 1
          perInstance.set(instance.name, (perInstance.get(instance.name) ?? 0) + 1)
        } else if (valid.includes(credential)) {
          validRefusals.push(`${instance.name}: ${status} for ${credential.id}`)
        }
      }
    })

    // 2. The current version's migration, under that traffic.
    const pool = new pg.Pool({ connectionString: database.connectionString, max: 2, connectionTimeoutMillis: 5_000 })
    try {
      const report = await migrate(pool)
      expect(report.applied.length).toBeGreaterThan(0)

      // 3. The current version, and the previous one started again on the migrated schema.
      const [current, restarted] = await Promise.all([
        startInstance('current', currentModules, env, sent),
        startInstance(`previous (${previous.label}), started after the migration`, previousModules, env, sent),
      ])
      instances.push(current, restarted)

      // 4. Management writes through each version in turn, one at a time, while the verifications run.
      const byInstance = new Map<string, Set<string>>()
      const wrote = (instance: Instance, op: string) => byInstance.set(instance.name, (byInstance.get(instance.name) ?? new Set()).add(op))
      const deadline = Date.now() + TRAFFIC_MS
      const everyWrite = () => instances.every((instance) => byInstance.get(instance.name)?.size === 3)
      // At least TRAFFIC_MS, and until each instance made each kind of write (60 s at most).
      for (let turn = 0; Date.now() < deadline || (!everyWrite() && Date.now() < deadline + 60_000); turn++) {
        // Each kind of write through each instance in turn (create, rotate, delete; then the next instance).
        const instance = instances[Math.floor(turn / 3) % instances.length]!
        const accountId = ACCOUNTS[turn % ACCOUNTS.length]!
        const mine = [...newest.values()].filter((credential) => credential.accountId === accountId)
        const op = turn % 3 === 0 ? 'create' : turn % 3 === 1 ? 'rotate' : 'delete'
        if (op === 'create' || mine.length < 4) {
          const { id, value } = await manage(instance, { op: 'create', accountId, name: `made ${turn}`, expiryDays: turn % 2 === 0 ? 1 : 90 })
          add({ accountId, id: id!, value: value! })
          writes.create += 1
          wrote(instance, 'create')
        } else if (op === 'rotate') {
          const target = pick(mine)
          // A passcode keeps one previous value: the one before it stops being valid now.
          for (const credential of valid.filter((credential) => credential.id === target.id && credential !== target)) {
            valid.splice(valid.indexOf(credential), 1)
          }
          const { value } = await manage(instance, { op: 'rotate', accountId, passcodeId: target.id })
          // An overlap of an hour: the value before stays valid too.
          add({ accountId, id: target.id, value: value! })
          writes.rotate += 1
          wrote(instance, 'rotate')
        } else {
          const target = pick(mine)
          const values = valid.filter((credential) => credential.id === target.id)
          for (const credential of values) valid.splice(valid.indexOf(credential), 1)
          newest.delete(target.id)
          deleted.push(...values)
          await manage(instance, { op: 'delete', accountId, passcodeId: target.id })
          writes.delete += 1
          wrote(instance, 'delete')
        }
      }
      running = false
      await Promise.all(traffic)
      expect(validRefusals).toEqual([])
      for (const instance of instances) expect(perInstance.get(instance.name), `${instance.name} answered`).toBeGreaterThan(0)
      // Each kind of write went through each version.
      for (const instance of instances) expect(byInstance.get(instance.name)?.size, `${instance.name} wrote`).toBe(3)

      // Every deleted passcode refused by every instance, within 10 s of the end.
      const refusedBy = Date.now() + 10_000
      for (const instance of instances) {
        for (const credential of deleted) {
          let status = await verify(instance, credential)
          while (status === 200 && Date.now() < refusedBy) {
            answered200 += 1
            await new Promise((resolve) => setTimeout(resolve, 100))
            status = await verify(instance, credential)
          }
          if (status === 200) answered200 += 1
          expect(status, `${instance.name} refuses deleted ${credential.id}`).not.toBe(200)
        }
      }

      // Every live passcode expiring within 30 days emailed once for its expiry (within 15 s).
      const auth = createPasscodeAuth({ store: postgresStore(pool, { listen: false }), usage: false })
      const expected: string[] = []
      for (const accountId of ACCOUNTS) {
        for (const view of await auth.passcodes.list(admin, accountId)) {
          if (view.expiresAt !== null && view.expiresAt.getTime() - Date.now() < 30 * 86_400_000) {
            expected.push(`${view.id}|expiring_soon|${view.expiresAt.toISOString()}`)
          }
        }
      }
      expect(expected.length).toBeGreaterThan(0)
      const emailedBy = Date.now() + 15_000
      while (expected.some((key) => !sent.includes(key)) && Date.now() < emailedBy) await new Promise((resolve) => setTimeout(resolve, 200))
      expect(expected.filter((key) => !sent.includes(key))).toEqual([])
      expect(sent.filter((key, index) => sent.indexOf(key) !== index)).toEqual([])

      // Stopped (each flushes its usage counts): every count and record is in the store.
      expect(await Promise.all(instances.map(stopInstance))).toEqual(instances.map(() => 0))
      const schema = 'passcode_auth'
      const [usage] = (await pool.query(`SELECT coalesce(sum(n), 0)::int AS n FROM ${schema}.usage_days WHERE outcome = 'succeeded'`)).rows as [
        { n: number },
      ]
      expect(usage.n).toBe(answered200)
      const audit = (await pool.query(`SELECT action, count(*)::int AS n FROM ${schema}.audit_records GROUP BY action ORDER BY action`)).rows as {
        action: string
        n: number
      }[]
      const counts = Object.fromEntries(audit.map((row) => [row.action, row.n]))
      expect({ ...counts, 'notification.sent': undefined }).toEqual({
        'notification.sent': undefined,
        'passcode.created': writes.create,
        'passcode.deleted': writes.delete,
        'passcode.rotated': writes.rotate,
      })
      // One record per email too, whichever version sent it: every email of a passcode
      // still there has its record. (An email whose passcode a deletion removed while it
      // was on the way may have none: its completion finds no row. That race is the same
      // within one version, and is not what this test is about.)
      const deletedIds = new Set(deleted.map((credential) => credential.id))
      const records = (await pool.query(`SELECT target_id FROM ${schema}.audit_records WHERE action = 'notification.sent'`)).rows as {
        target_id: string
      }[]
      const emailsOfLive = sent.filter((key) => !deletedIds.has(key.split('|')[0]!))
      expect(records.filter((record) => !deletedIds.has(record.target_id)).length).toBe(emailsOfLive.length)
      expect(records.length).toBeLessThanOrEqual(sent.length)
      for (const accountId of ACCOUNTS) expect(await auth.audit.verify(accountId), accountId).toMatchObject({ ok: true })
      await auth.close()
    } finally {
      running = false
      await Promise.all(traffic).catch(() => {})
      await pool.end()
    }
  }, 240_000)
})
