import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'

/*
 * Counts the usage writes the reference server makes during a soak run (SPEC §5.27:
 * at most one per passcode per flush interval per instance), from inside the database,
 * so that the server runs unchanged: triggers on the two passcode tables log every row
 * whose `last_used_at` changes, with the transaction it changed in (one usage flush is
 * one statement, so one transaction). Installed on the seeded data folder before the
 * server starts, read after it stopped (its shutdown flushes what was pending).
 */

const SCHEMA = 'soak_audit'

/** Adds the counting triggers to a seeded, migrated data folder (default schema). */
export async function installUsageWriteCounter(db: PGlite): Promise<void> {
  await db.exec(`
    CREATE SCHEMA ${SCHEMA};
    CREATE TABLE ${SCHEMA}.usage_writes (tx bigint NOT NULL, passcode text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE FUNCTION ${SCHEMA}.account_used() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO ${SCHEMA}.usage_writes (tx, passcode) VALUES (txid_current(), 'account:' || NEW.id); RETURN NEW; END $$;
    CREATE FUNCTION ${SCHEMA}.user_used() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO ${SCHEMA}.usage_writes (tx, passcode) VALUES (txid_current(), 'user:' || NEW.account_id || '/' || NEW.user_id); RETURN NEW; END $$;
    CREATE TRIGGER soak_usage AFTER UPDATE OF last_used_at ON passcode_auth.account_passcodes
      FOR EACH ROW WHEN (OLD.last_used_at IS DISTINCT FROM NEW.last_used_at) EXECUTE FUNCTION ${SCHEMA}.account_used();
    CREATE TRIGGER soak_usage AFTER UPDATE OF last_used_at ON passcode_auth.user_passcodes
      FOR EACH ROW WHEN (OLD.last_used_at IS DISTINCT FROM NEW.last_used_at) EXECUTE FUNCTION ${SCHEMA}.user_used();
  `)
}

/** What the server wrote for usage during the run. */
export interface UsageWrites {
  /** Rows written (one per passcode per flush that saw it). */
  readonly writes: number
  /** Flushes that wrote something (transactions). */
  readonly flushes: number
  /** Distinct passcodes written at least once. */
  readonly passcodes: number
  /** The most writes any one passcode received. */
  readonly maxPerPasscode: number
}

/** Reads the counts from the data folder after the server stopped. */
export async function readUsageWrites(dir: string): Promise<UsageWrites> {
  const db = await PGlite.create(join(dir, 'pgdata'))
  try {
    const { rows } = await db.query<{ writes: number; flushes: number; passcodes: number; max_per_passcode: number | null }>(`
      SELECT count(*)::int AS writes, count(DISTINCT tx)::int AS flushes, count(DISTINCT passcode)::int AS passcodes,
             (SELECT max(n)::int FROM (SELECT count(*) AS n FROM ${SCHEMA}.usage_writes GROUP BY passcode) AS per) AS max_per_passcode
      FROM ${SCHEMA}.usage_writes`)
    const row = rows[0]!
    return { writes: row.writes, flushes: row.flushes, passcodes: row.passcodes, maxPerPasscode: row.max_per_passcode ?? 0 }
  } finally {
    await db.close()
  }
}
