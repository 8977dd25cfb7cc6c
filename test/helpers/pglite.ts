import { createHash } from 'node:crypto'
import { mkdirSync, openAsBlob, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { NEW_DATABASE_SETTINGS } from '../../src/cli/data-folder'
import { buildOnce } from './build-once'

/**
 * Fresh PGlite databases for tests without running initdb for each. Creating a PGlite
 * database runs initdb in WebAssembly (3 to 5 CPU-seconds); loading the dump of one that
 * initdb just made takes about one. The dump is made once per PGlite version, kept under
 * node_modules/.cache (CI starts without it and makes it once), and holds nothing but an
 * empty, just-initialised database: every database loaded from it starts in the state a
 * `new PGlite()` starts in, with the settings the reference server gives the database of
 * a new data folder (`NEW_DATABASE_SETTINGS`: a 16MB buffer pool, which each start sets
 * up in a third of the CPU time of PostgreSQL's default 128MB).
 */

const root = fileURLToPath(new URL('../..', import.meta.url))
const { version } = JSON.parse(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
const cache = path.join(root, 'node_modules/.cache/passcode-auth-pglite')
const settings = createHash('sha256').update(NEW_DATABASE_SETTINGS.join(' ')).digest('hex').slice(0, 8)
const dumpFile = path.join(cache, `initdb-${version}-${settings}.tar`)

/** The database this process ran initdb for to make the dump: still empty, handed to the first caller that wants one in memory. */
let built: PGlite | undefined

let ready: Promise<void> | undefined

/** The dump, made by the first test process that needs it (test files start in parallel). */
function initdbDump(): Promise<void> {
  ready ??= (async () => {
    mkdirSync(cache, { recursive: true })
    await buildOnce(dumpFile, async (building) => {
      const db = await PGlite.create({ initDbStartParams: [...NEW_DATABASE_SETTINGS] })
      try {
        writeFileSync(building, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()))
      } catch (error) {
        await db.close()
        throw error
      }
      built = db
    })
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
