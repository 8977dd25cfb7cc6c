import { fork, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { NEW_DATABASE_SETTINGS } from '../../src/cli/data-folder'
import { createPasscodeAuth } from '../../src/index'
import { migrate, postgresPartners, postgresStore } from '../../src/stores/postgres/index'
import { MIGRATIONS } from '../../src/stores/postgres/migrations'
import type { SoakCredentials } from './traffic'
import { installUsageWriteCounter } from './usage-writes'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const DAY_MS = 86_400_000
const admin = { userId: 'u_soak_admin', role: 'admin' } as const

/** Secrets of one soak run: random, handed to the server through its environment, never printed. */
export interface SoakSecrets {
  readonly pepper: string
  readonly encryptionKeys: string
}

export function soakSecrets(): SoakSecrets {
  return { pepper: randomBytes(32).toString('base64url'), encryptionKeys: `k1:${randomBytes(32).toString('base64url')}` }
}

/**
 * A migrated, empty PGlite database folder, made once per PGlite version and schema
 * version and copied for each run: creating one runs initdb in WebAssembly, which
 * takes seconds, while copying it takes milliseconds. It holds no secret and no row,
 * and has the settings `serve` gives the database of a new data folder.
 */
async function emptyDatabaseTemplate(): Promise<string> {
  const manifest = join(ROOT, 'node_modules/@electric-sql/pglite/package.json')
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
  const settings = createHash('sha256').update(NEW_DATABASE_SETTINGS.join(' ')).digest('hex').slice(0, 8)
  const template = join(tmpdir(), `passcode-auth-soak-template-pglite${version}-schema${MIGRATIONS.length}-${settings}`)
  if (existsSync(join(template, 'PG_VERSION'))) return template
  // Built aside and renamed, so that a concurrent run never copies half a template.
  const building = mkdtempSync(`${template}.building-`)
  // As `serve` makes the database of a new data folder.
  const db = await PGlite.create(building, { initDbStartParams: [...NEW_DATABASE_SETTINGS] })
  await migrate(db)
  await db.close()
  try {
    renameSync(building, template)
  } catch {
    // Another run renamed its own first: use that one.
    rmSync(building, { recursive: true, force: true })
  }
  return template
}

/**
 * Fills a new data folder the way `serve` will open it (PGlite in `<dir>/pgdata`, the
 * default schema), before the server starts: PGlite is one process's database. Expired
 * passcodes are created with a clock two days back and a one-day expiry. The database
 * is a copy of `template` (a migrated, empty PGlite database folder) when given.
 */
export async function seedDataFolder(
  dir: string,
  secrets: SoakSecrets,
  sizes: { valid: number; users: number },
  template?: string,
): Promise<SoakCredentials> {
  cpSync(template ?? (await emptyDatabaseTemplate()), join(dir, 'pgdata'), { recursive: true })
  const db = await PGlite.create(join(dir, 'pgdata'))
  try {
    const partner = 'soak-partner'
    await postgresPartners(db).add(partner)
    let now = Date.now() - 2 * DAY_MS
    const [id, key] = secrets.encryptionKeys.split(':') as [string, string]
    const auth = createPasscodeAuth({
      store: postgresStore(db, { listen: false }),
      pepper: secrets.pepper,
      encryptionKeys: [{ id, key }],
      clock: () => new Date(now),
    })
    const accountId = 'acc_soak'
    const otherAccountId = 'acc_soak_other'
    await auth.accounts.setAcceptedPasscodes(admin, accountId, 'both')

    const expired: string[] = []
    for (let i = 0; i < Math.max(2, sizes.valid / 5); i++) {
      expired.push((await auth.passcodes.create(admin, accountId, { name: `Expired ${i}`, expiry: 1 })).value)
    }
    now = Date.now()
    const valid: SoakCredentials['valid'][number][] = []
    for (let i = 0; i < sizes.valid; i++) {
      const name = `Partner ${i}`
      const { passcode, value } = await auth.passcodes.create(admin, accountId, { name, expiry: 90 })
      valid.push({ value, passcodeId: passcode.id, name })
    }
    const users: SoakCredentials['users'][number][] = []
    for (let i = 0; i < sizes.users; i++) {
      const userId = `u_soak_${i}`
      await auth.userPasscodes.grant(admin, accountId, userId, { validity: { type: 'finite', days: 30 } })
      users.push({ userId, value: (await auth.userPasscodes.reveal({ userId, role: 'member' }, accountId)).value })
    }
    const otherAccount: string[] = []
    for (let i = 0; i < 3; i++) {
      otherAccount.push((await auth.passcodes.create(admin, otherAccountId, { name: `Other ${i}`, expiry: 90 })).value)
    }
    await auth.close()
    await installUsageWriteCounter(db)
    return { partner, accountId, otherAccountId, valid, users, expired, otherAccount }
  } finally {
    await db.close()
  }
}

/** The reference server (`passcode-auth serve`) running in a child process. */
export interface ReferenceServer {
  readonly port: number
  /** The server's heap in use right after a forced full GC, in bytes. */
  heapAfterGc(): Promise<{ heapUsed: number; rss: number }>
  /** Whether the process ended on its own (a crash), and its exit code. */
  readonly exited: { code: number | null; signal: string | null } | undefined
  /** SIGTERM, as an operator would; SIGKILL after 10 s. */
  stop(): Promise<void>
}

/**
 * Starts `passcode-auth serve` on 127.0.0.1 (port 0) over the seeded data folder,
 * with `--expose-gc` and the heap probe preloaded. Its output is read and dropped
 * (the console mailer writes expiry emails there), so the pipes never fill up.
 */
export async function startReferenceServer(dir: string, secrets: SoakSecrets): Promise<ReferenceServer> {
  const child: ChildProcess = fork(join(ROOT, 'src/cli/index.ts'), ['serve', '--host', '127.0.0.1', '--port', '0', '--json', '--no-demo'], {
    cwd: ROOT,
    execArgv: ['--expose-gc', '--import', 'tsx', '--import', join(ROOT, 'scripts/soak/heap-probe.ts')],
    env: {
      ...process.env,
      PASSCODE_AUTH_DATA_DIR: dir,
      PASSCODE_AUTH_PEPPER: secrets.pepper,
      PASSCODE_AUTH_ENCRYPTION_KEYS: secrets.encryptionKeys,
      // Empty counts as unset: the soak always runs on the data folder it seeded.
      DATABASE_URL: '',
      // The mix sends failures from one address on purpose: the limiter (on by default
      // in serve) keeps counting them, at a limit the run never reaches (10 000 in a
      // 1 s window), so every answer stays the one its kind expects.
      PASSCODE_AUTH_RATE_LIMIT: '10000',
      PASSCODE_AUTH_RATE_LIMIT_WINDOW_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  let exited: ReferenceServer['exited']
  child.once('exit', (code, signal) => {
    exited = { code, signal }
  })
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000)
  })
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 60 s; stderr: ${stderr}`)), 60_000)
    let listening = false
    child.stdout!.on('data', (chunk: Buffer) => {
      if (listening) return
      stdout += chunk.toString('utf8')
      try {
        const { url } = JSON.parse(stdout) as { url: string }
        listening = true
        clearTimeout(timer)
        resolve(Number(new URL(url).port))
      } catch {
        // Not the whole document yet.
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with code ${code} before listening; stderr: ${stderr}`))
    })
  })

  let nextId = 0
  return {
    port,
    get exited() {
      return exited
    },
    heapAfterGc() {
      const id = ++nextId
      return new Promise((resolve, reject) => {
        const onMessage = (message: { type?: string; id?: number; heapUsed?: number; rss?: number; error?: string } | undefined) => {
          if (message?.type !== 'heap' || message.id !== id) return
          child.off('message', onMessage)
          if (message.error !== undefined) reject(new Error(message.error))
          else resolve({ heapUsed: message.heapUsed!, rss: message.rss! })
        }
        child.on('message', onMessage)
        child.send({ type: 'heap', id })
      })
    },
    async stop() {
      if (exited !== undefined) return
      const done = once(child, 'exit')
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await done
      clearTimeout(timer)
    },
  }
}
