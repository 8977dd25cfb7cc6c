import { InvalidOptionsError } from '../../core/errors'
import type { Database, PGliteLike, PgClientLike, PgPoolLike } from './database-interface'
import { pgClientDatabase } from './pg-client-database'
import { pgPoolDatabase, requireConnectDeadline } from './pg-pool-database'
import { pgliteDatabase } from './pglite-database'

// The dispatcher above the three drivers: it picks one by the object's shape. The
// types and helpers they share live below them, in database-interface.ts.

const databases = new WeakMap<object, Database>()

/**
 * Wraps a driver object once; every store, migration and registry over the same
 * object shares the wrapper, so a `pg` Client's statements are serialised across them.
 * What serves requests (a store, a partner registry, a limiter store) refuses a `pg`
 * Pool whose new connections may wait for ever ({@link requireConnectDeadline}); a
 * migration (`serves: false`) takes any pool: it serves no request, and its statements
 * have no deadline anyway.
 */
export function toDatabase(db: unknown, { serves = true }: { readonly serves?: boolean } = {}): Database {
  if (typeof db !== 'object' || db === null) throw notADatabase()
  const candidate = db as Record<string, unknown>
  const isPool = !isPglite(candidate) && typeof candidate.connect === 'function' && typeof candidate.query === 'function' && 'totalCount' in candidate
  // Before the shared wrapper is looked up: a migration may have made it.
  if (isPool && serves) requireConnectDeadline(db as PgPoolLike)
  let wrapped = databases.get(db)
  if (wrapped !== undefined) return wrapped
  if (isPglite(candidate)) {
    wrapped = pgliteDatabase(db as PGliteLike)
  } else if (isPool) {
    wrapped = pgPoolDatabase(db as PgPoolLike)
  } else if (typeof candidate.query === 'function' && typeof candidate.on === 'function') {
    wrapped = pgClientDatabase(db as PgClientLike)
  } else {
    throw notADatabase()
  }
  databases.set(db, wrapped)
  return wrapped
}

function isPglite(candidate: Record<string, unknown>): boolean {
  return typeof candidate.transaction === 'function' && typeof candidate.listen === 'function' && typeof candidate.query === 'function'
}

function notADatabase(): InvalidOptionsError {
  return new InvalidOptionsError('db', 'must be a pg Pool, a pg Client or a PGlite instance')
}
