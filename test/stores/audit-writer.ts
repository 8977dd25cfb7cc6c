// A host process for the audit concurrency test: its own pool, store and service,
// appending `count` records to one account as fast as it can, then exiting.
import pg from 'pg'
import { createPasscodeAuth } from '../../src/index'
import { postgresStore } from '../../src/stores/postgres/index'

const [connectionString, schema, accountId, count, label] = process.argv.slice(2) as [string, string, string, string, string]
const pool = new pg.Pool({ connectionString, max: 4, connectionTimeoutMillis: 10_000 })
pool.on('error', () => {})
const store = postgresStore(pool, { schema, listen: false })
const auth = createPasscodeAuth({ store, partners: ['acme'], cache: false })
const admin = { userId: `u_${label}`, role: 'admin' } as const

// Four writers in this process too, so appends interleave inside and across processes.
await Promise.all(
  Array.from({ length: 4 }, async (_, lane) => {
    for (let i = lane; i < Number(count); i += 4) {
      const { passcode } = await auth.passcodes.create(admin, accountId, { name: `${label}-${i}`, expiry: 30 })
      await auth.passcodes.update(admin, accountId, passcode.id, { expiry: 60 })
      await auth.passcodes.delete(admin, accountId, passcode.id)
    }
  }),
)
await auth.close()
await pool.end()
