import { subscriptionOf, type Database, type PGliteLike, type Queryable, type Row } from './database-interface'
import { preparedLookup } from './pglite-lookup'

/**
 * A PGlite instance: one embedded session that PGlite itself serialises. Its own
 * transaction API rolls back when the callback throws, and its `listen` delivers
 * `NOTIFY` in process to every store on the instance.
 */
export function pgliteDatabase(db: PGliteLike): Database {
  const lookup = preparedLookup(db)
  return {
    async query(text, params) {
      const result = await db.query<Row>(text, params === undefined ? undefined : [...params])
      return result.rows
    },

    ...(lookup === undefined ? {} : { lookup }),

    transaction(fn) {
      return db.transaction((tx) => {
        const queryable: Queryable = {
          async query(text, params) {
            const result = await tx.query<Row>(text, params === undefined ? undefined : [...params])
            return result.rows
          },
        }
        return fn(queryable)
      })
    },

    listen(channel, onPayload) {
      return subscriptionOf(db.listen(channel, onPayload))
    },

    // In process: a notification cannot be lost on the way, so there is nothing to prove.
    local: true,
  }
}
