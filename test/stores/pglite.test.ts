import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll } from 'vitest'
import { storeConformance } from '../conformance/store'
import { freshPglite } from '../helpers/pglite'
import { migrationCases } from './migration-cases'
import { openSqlFixture, schemaPool } from './sql-fixture'
import { rateLimitStoreCases } from './rate-limit-cases'
import { sqlStoreCases } from './sql-store-cases'

// One PGlite instance for the file (it takes seconds to start, even from the cached
// initdb of test/helpers/pglite.ts); every test gets an empty, migrated schema of its
// own in it (one an earlier test emptied, see SchemaPool). A PGlite instance is one
// session, so a "peer" is another store over the same instance, as several services in
// one process would share it.
let db: PGlite
const schemas = schemaPool()

beforeAll(async () => {
  db = await freshPglite()
})

afterAll(async () => {
  await db?.close()
})

storeConformance('postgresStore on PGlite', {
  queryPlan: true,
  open: () => openSqlFixture({ main: db, another: async () => ({ db, close: async () => {} }) }, schemas),
})

sqlStoreCases('postgresStore on PGlite', {
  main: () => db,
  another: async () => ({ db, close: async () => {} }),
  schemas,
})

// A data folder, as the reference server keeps one: written by one PGlite instance,
// closed, then opened by the next release. The first instance starts it from the cached
// initdb, as a first `new PGlite(dir)` would have made it.
migrationCases('PGlite data folder', {
  storage: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'passcode-auth-migration-'))
    let opened = false
    return {
      open: async () => {
        const folder = opened ? await PGlite.create(dir) : await freshPglite(dir)
        opened = true
        return { db: folder, close: () => folder.close() }
      },
      drop: () => rm(dir, { recursive: true, force: true }),
    }
  },
})

rateLimitStoreCases('PGlite', {
  main: () => db,
  another: async () => ({ db, close: async () => {} }),
})
