import pg from 'pg'
import { migrate } from '../../src/stores/postgres/index'
import { uniqueSchema } from '../stores/sql-fixture'
import { startTestPgBouncer, type TestPgBouncer } from './pgbouncer'
import { startTestPostgres, type TestPostgres } from './postgres'
import { sharedTestPostgres } from './shared-postgres'

/** Something a fault file opens for a case and closes after the file. */
export interface Closable {
  close(): Promise<void>
}

/**
 * The servers of a fault file whose cases run at the same time, each faulting only what
 * is its own: the file's database on the run's shared PostgreSQL server (which no case
 * stops; test/helpers/shared-postgres.ts), and what a case opens for itself (a PgBouncer
 * it kills or cuts, a cluster it restarts, its instances), closed after the file, the
 * last opened first, and the database last.
 */
export interface FaultServers {
  /** The file's database, on the run's shared PostgreSQL server: never stopped by a case. */
  readonly postgres: TestPostgres
  /** A PgBouncer (transaction mode) of the case's own in front of {@link postgres}, for a case that kills, restarts or cuts it. */
  ownPgBouncer(): Promise<TestPgBouncer>
  /** A PostgreSQL cluster of the case's own, for a case that stops or restarts it. */
  ownPostgres(): Promise<TestPostgres>
  /** A new schema in `server` (the file's database unless given), migrated to the latest version over a connection of its own. */
  migratedSchema(server?: TestPostgres): Promise<string>
  /** Closes `resource` after the file, before everything opened before it. Returns it. */
  closeAfter<T extends Closable>(resource: T): T
  /** Closes what the cases opened, the last opened first, then the file's database: call it in `afterAll`. */
  close(): Promise<void>
}

/**
 * Starts a fault file's servers. Call it in `beforeAll`, and `close()` in `afterAll`.
 *
 * @example
 * ```ts
 * let servers: FaultServers
 * beforeAll(async () => { servers = await faultServers() })
 * afterAll(() => servers?.close())
 * it('a PgBouncer restart', async () => {
 *   const bouncer = await servers.ownPgBouncer()
 *   const schema = await servers.migratedSchema()
 *   // …
 * })
 * ```
 */
export async function faultServers(): Promise<FaultServers> {
  const postgres = await sharedTestPostgres()
  const opened: Closable[] = []
  const closeAfter = <T extends Closable>(resource: T): T => {
    opened.push(resource)
    return resource
  }
  return {
    postgres,
    async ownPgBouncer() {
      const bouncer = await startTestPgBouncer(postgres.connectionString)
      closeAfter({ close: () => bouncer.stop() })
      return bouncer
    },
    async ownPostgres() {
      const server = await startTestPostgres()
      closeAfter({ close: () => server.stop() })
      return server
    },
    async migratedSchema(server = postgres) {
      const schema = uniqueSchema()
      const main = new pg.Pool({ connectionString: server.connectionString, max: 1, connectionTimeoutMillis: 10_000 })
      main.on('error', () => {})
      try {
        await migrate(main, { schema })
      } finally {
        await main.end()
      }
      return schema
    },
    closeAfter,
    async close() {
      for (const resource of opened.splice(0).reverse()) await resource.close()
      await postgres.stop()
    },
  }
}
