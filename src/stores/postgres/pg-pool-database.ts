import { inTransaction, pgQueryable, subscriptionOf, type Database, type PgPoolLike } from './database-interface'
import { pgChannelListener, type ListenConnection } from './pg-listener'
import { pgPreparedLookup } from './pg-prepared-lookup'

interface PoolInternals {
  /** pg-pool keeps the Client class and its options: a listener connects the same way. */
  readonly Client?: new (options: unknown) => ListenConnection
  readonly options?: unknown
}

/**
 * A `pg` Pool: statements go through the pool (the verification lookup as a named
 * prepared statement), a transaction borrows one
 * connection, and listening uses a dedicated connection outside the pool (opened
 * like the pool's own, reconnected when it drops).
 */
export function pgPoolDatabase(pool: PgPoolLike): Database {
  const queryable = pgQueryable(pool)
  return {
    query: queryable.query,

    lookup: pgPreparedLookup(pool),

    async transaction(fn) {
      const client = await pool.connect()
      // pg-pool listens for errors of idle clients only: a connection that drops
      // between two statements of this transaction would otherwise emit an
      // unhandled 'error' and crash the host. The next statement fails instead.
      let dropped = false
      const onError = (): void => {
        dropped = true
      }
      client.on?.('error', onError)
      const outcome = await inTransaction(pgQueryable(client), fn)
      client.removeListener?.('error', onError)
      if ('value' in outcome && !dropped) {
        client.release()
        return outcome.value
      }
      // A connection that failed is destroyed, never handed out again.
      client.release(dropped || ('broken' in outcome && outcome.broken) ? true : undefined)
      if ('value' in outcome) return outcome.value
      throw outcome.error
    },

    listen(channel, onPayload, onGap) {
      const internals = pool as unknown as PoolInternals
      const Client = internals.Client
      if (typeof Client !== 'function') {
        return subscriptionOf(Promise.reject(new Error('This pool cannot open a listening connection; pass { listen: false }')))
      }
      return pgChannelListener(() => new Client(internals.options), channel, onPayload, onGap)
    },
  }
}
