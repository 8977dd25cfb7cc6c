import { InvalidOptionsError } from '../../core/errors'
import type { Database, PGliteLike, PgClientLike, PgPoolLike } from './database-interface'
import { pgClientDatabase } from './pg-client-database'
import { pgPoolDatabase } from './pg-pool-database'
import { pgliteDatabase } from './pglite-database'

// The dispatcher above the three drivers: it picks one by the object's shape. The
// types and helpers they share live below them, in database-interface.ts.

const databases = new WeakMap<object, Database>()

/**
 * Wraps a driver object once; every store, migration and registry over the same
 * object shares the wrapper, so a `pg` Client's statements are serialised across them.
 */
export function toDatabase(db: unknown): Database {
  if (typeof db !== 'object' || db === null) throw notADatabase()
  let wrapped = databases.get(db)
  if (wrapped !== undefined) return wrapped
  const candidate = db as Record<string, unknown>
  if (typeof candidate.transaction === 'function' && typeof candidate.listen === 'function' && typeof candidate.query === 'function') {
    wrapped = pgliteDatabase(db as PGliteLike)
  } else if (typeof candidate.connect === 'function' && typeof candidate.query === 'function' && 'totalCount' in candidate) {
    wrapped = pgPoolDatabase(db as PgPoolLike)
  } else if (typeof candidate.query === 'function' && typeof candidate.on === 'function') {
    wrapped = pgClientDatabase(db as PgClientLike)
  } else {
    throw notADatabase()
  }
  databases.set(db, wrapped)
  return wrapped
}

function notADatabase(): InvalidOptionsError {
  return new InvalidOptionsError('db', 'must be a pg Pool, a pg Client or a PGlite instance')
}
