import { closeSync, existsSync, mkdirSync, openAsBlob, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'

/**
 * Fresh PGlite databases for tests without running initdb for each. Creating a PGlite
 * database runs initdb in WebAssembly (3 to 5 CPU-seconds); loading the dump of one that
 * initdb just made takes about one. The dump is made once per PGlite version, kept under
 * node_modules/.cache (CI starts without it and makes it once), and holds nothing but an
 * empty, just-initialised database: every database loaded from it starts in the state a
 * `new PGlite()` starts in.
 */

const root = fileURLToPath(new URL('../..', import.meta.url))
const { version } = JSON.parse(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
const cache = path.join(root, 'node_modules/.cache/passcode-auth-pglite')
const dumpFile = path.join(cache, `initdb-${version}.tar`)
/** Older than this, a lock is taken to be left by a process that died while building. */
const STALE_LOCK_MS = 120_000

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The database this process ran initdb for to make the dump: still empty, handed to the first caller that wants one in memory. */
let built: PGlite | undefined

async function build(): Promise<void> {
  const db = await PGlite.create()
  try {
    const dump = await db.dumpDataDir('none')
    const building = `${dumpFile}.${process.pid}`
    writeFileSync(building, Buffer.from(await dump.arrayBuffer()))
    renameSync(building, dumpFile) // atomic: a reader never sees half a dump
  } catch (error) {
    await db.close()
    throw error
  }
  built = db
}

let ready: Promise<void> | undefined

/** The dump, made first if no test process has made it yet (one at a time: test files start in parallel). */
function initdbDump(): Promise<void> {
  ready ??= (async () => {
    mkdirSync(cache, { recursive: true })
    const lock = `${dumpFile}.lock`
    while (!existsSync(dumpFile)) {
      let fd: number | undefined
      try {
        fd = openSync(lock, 'wx')
      } catch {
        // Another test process is building it: wait for its dump, unless its lock is stale.
        if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_LOCK_MS) rmSync(lock, { force: true })
        await sleep(100)
        continue
      }
      try {
        if (!existsSync(dumpFile)) await build()
      } finally {
        closeSync(fd)
        rmSync(lock, { force: true })
      }
    }
  })()
  return ready
}

/**
 * A new, empty PGlite database: in memory, or in the data folder `dataDir` (which must
 * be empty or missing; later opens of that folder are plain `new PGlite(dataDir)`).
 *
 * @example
 * ```ts
 * const db = await freshPglite()
 * await migrate(db, { schema })
 * ```
 */
export async function freshPglite(dataDir?: string): Promise<PGlite> {
  await initdbDump()
  const own = built
  built = undefined
  if (own !== undefined && dataDir === undefined) return own
  await own?.close()
  const loadDataDir = await openAsBlob(dumpFile)
  return dataDir === undefined ? PGlite.create({ loadDataDir }) : PGlite.create(dataDir, { loadDataDir })
}
