import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { CliError } from './exit-codes'
import { assertPrivateFolder, createOwnerOnly } from './folder-permissions'

/**
 * The embedded data folder: `pgdata/` (the PGlite database), `secrets.json` (pepper and
 * encryption keys, mode 0600), `lock` (the process using the folder), while `serve`
 * runs, `serve.sock` (where other commands hand their work to it), and `shown.txt`
 * (mode 0600: the demo passcode and the login link that `serve` shows a person on a
 * terminal, written there instead when its stderr is not one), `link.txt` (mode 0600:
 * the login link `dashboard link` made last, when its stderr is not a terminal). PGlite is one
 * process's database: two processes opening `pgdata/` at once would corrupt it, hence
 * the lock.
 */
export const dataFolderPaths = (dir: string) => ({
  database: path.join(dir, 'pgdata'),
  secrets: path.join(dir, 'secrets.json'),
  lock: path.join(dir, 'lock'),
  socket: path.join(dir, 'serve.sock'),
  shown: path.join(dir, 'shown.txt'),
  link: path.join(dir, 'link.txt'),
})

/**
 * initdb's settings for the database of a new data folder, written into its
 * `pgdata/postgresql.conf` (an existing folder keeps its own, which its owner may edit).
 * `shared_buffers` is 16MB instead of PostgreSQL's 128MB: PGlite sets up the whole pool
 * at every start of the folder, and keeps it in the process's memory for good. Measured
 * on one folder, a start of PGlite cost 0.3 CPU-s at 16MB against 0.8 at 128MB, the
 * process held about 100MB less after initdb, and lookups among 50 000 passcodes (20MB
 * of table and indexes, beyond the pool) were no slower.
 */
export const NEW_DATABASE_SETTINGS: readonly string[] = ['--set', 'shared_buffers=16MB']

/**
 * Creates the folder (private to the user) and says whether it holds no database yet.
 * Refuses a data folder or database folder that other users could write to or that
 * belongs to another user, and makes everything this process creates owner-only.
 */
export function prepareDataFolder(dir: string): { fresh: boolean } {
  createOwnerOnly()
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (!statSync(dir).isDirectory()) throw new Error('not a directory')
  } catch (error) {
    throw new CliError('ERR_DATA_FOLDER', `Cannot use the data folder ${dir}: ${(error as Error).message}`, {
      setting: 'PASSCODE_AUTH_DATA_DIR',
      cause: error,
    })
  }
  assertPrivateFolder(dir, 'data folder')
  const { database } = dataFolderPaths(dir)
  if (existsSync(database)) assertPrivateFolder(database, 'database folder')
  const fresh = !existsSync(path.join(database, 'PG_VERSION'))
  // Inside a project, `git add .` must not commit the database (hashes, encrypted
  // values) or secrets.json: the folder ignores itself from the day it is made.
  const ignore = path.join(dir, '.gitignore')
  if (fresh && !existsSync(ignore)) writeFileSync(ignore, '# Made by passcode-auth: nothing in this data folder belongs in version control.\n*\n')
  return { fresh }
}

/** Who holds a data folder's lock. */
export interface LockHolder {
  readonly pid: number
  readonly command: string
}

/** A held lock; `release` is idempotent. */
export interface FolderLock {
  release(): void
}

/** Whether a process with this id exists (someone else's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    // The file is read back as written by another process: nothing in it is trusted.
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { readonly [K in keyof LockHolder]?: unknown }
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, command: typeof parsed.command === 'string' ? parsed.command : '?' } : undefined
  } catch {
    return undefined
  }
}

/**
 * Takes the folder's lock, or reports who holds it. A lock left by a process that no
 * longer exists (killed, crashed) is taken over.
 */
export function tryLockDataFolder(dir: string, command: string): FolderLock | { heldBy: LockHolder } {
  const file = dataFolderPaths(dir).lock
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number
    try {
      fd = openSync(file, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CliError('ERR_DATA_FOLDER', `Cannot lock the data folder ${dir}: ${(error as Error).message}`, { cause: error })
      }
      const holder = readHolder(file)
      // Unreadable: another process is writing it right now, unless it is old.
      const written = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0
      const stale = holder === undefined ? Date.now() - written > 10_000 : !isAlive(holder.pid)
      if (!stale) return { heldBy: holder ?? { pid: 0, command: 'starting' } }
      try {
        unlinkSync(file)
      } catch {
        // Someone else took it over first; try again.
      }
      continue
    }
    writeSync(fd, JSON.stringify({ pid: process.pid, command }))
    closeSync(fd)
    let released = false
    return {
      release() {
        if (released) return
        released = true
        if (readHolder(file)?.pid === process.pid) unlinkSync(file)
      },
    }
  }
  throw new CliError('ERR_DATA_FOLDER', `Cannot lock the data folder ${dir}: its lock file keeps changing`)
}
