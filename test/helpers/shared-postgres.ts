import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { inject } from 'vitest'
import { buildOnce } from './build-once'
import { startTestPostgres, type TestPostgres } from './postgres'

/**
 * One PostgreSQL server for the files of a run that need a database but no server of
 * their own: each such file gets a new database on it (`CREATE DATABASE`, tens of
 * milliseconds) instead of a cluster of its own (a copy of the template cluster, a start
 * and a stop: seconds on a busy machine). The server is started by the first file that
 * asks, in the folder test/helpers/shared-postgres-setup.ts (a global setup of the
 * `shared` project) made for the run, and stopped by that setup when the run ends, so
 * a run that needs no database starts none.
 *
 * A file that stops or restarts the server, or counts every session of it, keeps
 * {@link startTestPostgres}. Outside the `shared` project, and with `DATABASE_URL` set,
 * this is {@link startTestPostgres}.
 *
 * @example
 * ```ts
 * beforeAll(async () => { server = await sharedTestPostgres() })
 * afterAll(() => server?.stop())
 * ```
 */
export async function sharedTestPostgres(): Promise<TestPostgres> {
  const folder = inject('sharedPostgresFolder')
  if (folder === undefined || process.env.DATABASE_URL) return startTestPostgres()
  const described = join(folder, 'server.json')
  await buildOnce(described, async (building) => {
    // Several files use it at once, each with pools of its own.
    const server = await startTestPostgres({ maxConnections: 500, outliveProcess: true })
    writeFileSync(building, JSON.stringify({ connectionString: server.connectionString, folder: server.folder }))
  })
  const { connectionString } = JSON.parse(readFileSync(described, 'utf8')) as { connectionString: string }
  const database = `pa_file_${randomBytes(8).toString('hex')}`
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString })
    await client.connect()
    try {
      return await work(client)
    } finally {
      await client.end()
    }
  }
  await admin((client) => client.query(`CREATE DATABASE ${database}`))
  return {
    connectionString: connectionString.replace(/\/postgres$/, `/${database}`),
    // The file's pools have ended, but pg-pool resolves `end()` before its connections'
    // sessions are gone: FORCE would terminate them, and the FATAL 57P01 it sends an
    // ending connection is re-emitted by pg-pool on a pool with no listener left (an
    // uncaught exception of the file). So the drop waits, up to 10 s, for the sessions
    // to leave by themselves; FORCE only ends what is left after that.
    stop: () =>
      admin(async (client) => {
        const until = Date.now() + 10_000
        const sessions = async () =>
          Number((await client.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database])).rows[0].n)
        while ((await sessions()) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50))
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      }),
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the run's shared PostgreSQL server (test/helpers/shared-postgres-setup.ts). */
    sharedPostgresFolder?: string
  }
}
