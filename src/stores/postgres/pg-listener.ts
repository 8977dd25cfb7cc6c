import { unrefTimer } from '../../core/time'
import { STATEMENT_DEADLINE_MS, type Subscription } from './database-interface'

/** What a dedicated listening connection needs of a `pg` `Client`. */
export interface ListenConnection {
  connect(): Promise<unknown>
  query(text: string): Promise<unknown>
  end(): Promise<unknown>
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  on(event: 'end', listener: () => void): unknown
}

const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 5_000
const noop = (): void => {}

/**
 * The `connectionTimeoutMillis` of a listening connection whose settings give none: a
 * connection that a hung load balancer accepted and never answers would otherwise
 * hold the listener for ever.
 */
export const LISTEN_CONNECT_TIMEOUT_MS = 5_000

/**
 * Listens on `channel` over a connection of its own and keeps doing so: when the
 * connection fails or drops it is replaced, with a backoff of 100 ms doubling up to
 * 5 s. `ready` settles once the first `LISTEN` is active (retrying until then, or
 * until `stop`). Notifications sent while no connection was listening are lost:
 * PostgreSQL does not queue them for a session that is gone. So whenever a `LISTEN`
 * becomes active after an earlier attempt failed or dropped, `onGap` is called once
 * it is active, for subscribers to forget whatever they may have missed.
 * `renew` drops the current connection (one that failed to prove delivery, SPEC §5.32,
 * and may hang without ever failing) and makes another the same way. A `LISTEN` not
 * answered within {@link STATEMENT_DEADLINE_MS} of the connect (a cut between the two)
 * drops its connection the same way: until it is active there is no connection to renew.
 */
export function pgChannelListener(
  open: () => ListenConnection,
  channel: string,
  onPayload: (payload: string) => void,
  onGap?: () => void,
): Subscription {
  let closed = false
  let current: ListenConnection | undefined
  let loseCurrent: (() => void) | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let delay = FIRST_RETRY_MS
  // Set by the first attempt: every later LISTEN follows a time without one.
  let attempted = false
  let resolveReady: () => void = noop
  const ready = new Promise<void>((resolve) => {
    resolveReady = resolve
  })

  const stop = async (): Promise<void> => {
    closed = true
    clearTimeout(timer)
    const connection = current
    current = undefined
    loseCurrent = undefined
    resolveReady()
    if (connection !== undefined) await connection.end().catch(noop)
  }

  const retry = (): void => {
    if (closed) return
    clearTimeout(timer)
    timer = setTimeout(attempt, delay)
    unrefTimer(timer)
    delay = Math.min(delay * 2, MAX_RETRY_MS)
  }

  function attempt(): void {
    if (closed) return
    const afterGap = attempted
    attempted = true
    const connection = open()
    let lost = false
    let deadline: ReturnType<typeof setTimeout> | undefined
    const lose = (): void => {
      clearTimeout(deadline)
      if (lost) return
      lost = true
      if (current === connection) {
        current = undefined
        loseCurrent = undefined
      }
      connection.end().catch(noop)
      retry()
    }
    // An 'error' listener must always be present: an unhandled one would crash the host.
    connection.on('error', lose)
    connection.on('end', lose)
    connection.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload)
    })
    connection
      .connect()
      .then(() => {
        deadline = setTimeout(lose, STATEMENT_DEADLINE_MS)
        unrefTimer(deadline)
        return connection.query(`LISTEN ${channel}`)
      })
      .then(() => {
        clearTimeout(deadline)
        if (lost) return
        if (closed) {
          lost = true
          connection.end().catch(noop)
          return
        }
        current = connection
        loseCurrent = lose
        delay = FIRST_RETRY_MS
        resolveReady()
        if (afterGap) {
          try {
            onGap?.()
          } catch {
            // The callback's failure must not end the listening connection.
          }
        }
      }, lose)
  }

  attempt()
  return {
    ready,
    stop,
    renew() {
      loseCurrent?.()
    },
  }
}
