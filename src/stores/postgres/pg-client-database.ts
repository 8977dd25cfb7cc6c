import { pgQueryable, subscriptionOf, type Database, type PgClientLike } from './database-interface'
import { LISTEN_CONNECT_TIMEOUT_MS, pgChannelListener, type ListenConnection } from './pg-listener'
import { pgPrepared, pgPreparedLookup, pgPreparedTransaction, type NamedStatements } from './pg-prepared-lookup'

interface NotificationMessage {
  channel: string
  payload?: string | undefined
}

/**
 * A single `pg` Client: one connection, so every statement and transaction runs in
 * turn (otherwise a statement issued during a transaction would join it). Listening
 * happens on the same connection; the host owns it and its reconnection. With
 * `listenConnectionString`, listening happens on a connection of its own instead,
 * made with the client's class, with TCP keepalive, reconnected when it drops.
 */
export function pgClientDatabase(client: PgClientLike): Database {
  const connection = pgQueryable(client)
  let tail: Promise<unknown> = Promise.resolve()
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn)
    tail = run.catch(() => undefined)
    return run
  }

  // Several stores may share the client and a channel: UNLISTEN only when the last one stops.
  const channels = new Map<string, Set<(payload: string) => void>>()
  const dispatch = (message: NotificationMessage): void => {
    if (message.payload === undefined) return
    for (const callback of channels.get(message.channel) ?? []) callback(message.payload)
  }
  const unlisten = async (channel: string, onPayload: (payload: string) => void): Promise<void> => {
    const callbacks = channels.get(channel)
    if (callbacks === undefined || !callbacks.delete(onPayload) || callbacks.size > 0) return
    channels.delete(channel)
    if (channels.size === 0) client.removeListener('notification', dispatch)
    await exclusive(() => connection.query(`UNLISTEN ${channel}`)).catch(() => undefined)
  }
  const listen = async (channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> => {
    if (channels.size === 0) client.on('notification', dispatch)
    const callbacks = channels.get(channel) ?? new Set()
    channels.set(channel, callbacks.add(onPayload))
    try {
      await exclusive(() => connection.query(`LISTEN ${channel}`))
    } catch (error) {
      await unlisten(channel, onPayload)
      throw error
    }
    return () => unlisten(channel, onPayload)
  }

  // Whether named statements work on this connection (not through a transaction pooler).
  const namedStatements: NamedStatements = { usable: true }
  const lookup = pgPreparedLookup(client, namedStatements)
  const prepared = pgPrepared(client, namedStatements)
  return {
    query: (text, params) => exclusive(() => connection.query(text, params)),

    // With the function's array form too: one value's keys under several peppers go as one statement (nothing else shares: one connection).
    lookup: (text, key, call, callMany) => exclusive(() => lookup(text, key, call, callMany)),

    prepared: (text, params) => exclusive(() => prepared(text, params)),

    transaction: (fn) =>
      exclusive(async () => {
        const outcome = await pgPreparedTransaction(client, namedStatements, fn)
        if ('value' in outcome) return outcome.value
        throw outcome.error
      }),

    listen(channel, onPayload, onGap, options) {
      const connectionString = options?.connectionString
      if (connectionString === undefined) return subscriptionOf(listen(channel, onPayload))
      const Client = (client as unknown as { constructor: new (options: unknown) => ListenConnection }).constructor
      const settings = { connectionString, keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS }
      return pgChannelListener(() => new Client(settings), channel, onPayload, onGap)
    },
  }
}
