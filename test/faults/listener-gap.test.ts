import { EventEmitter } from 'node:events'
import { describe, expect, it, vi } from 'vitest'
import type { Principal } from '../../src/core/entities'
import type { Invalidation } from '../../src/ports/passcode-store'
import { VerificationCache } from '../../src/service/verify/verification-cache'
import { invalidationHub } from '../../src/stores/postgres/invalidations'
import { pgChannelListener, type ListenConnection } from '../../src/stores/postgres/pg-listener'
import { STATEMENT_DEADLINE_MS, type Database } from '../../src/stores/postgres/database-interface'
import { eventually } from '../conformance/store/fixtures'

/**
 * NOTIFY is not queued for a session that is gone: whatever was published while the
 * listening connection was down is lost. These cases check that the listener says so
 * each time listening resumes, and that the verification cache then drops everything.
 */

class FakeConnection extends EventEmitter implements ListenConnection {
  ended = false
  constructor(
    private readonly fails: boolean,
    /** The `LISTEN` is never answered (the connection was cut after its connect). */
    private readonly hangs = false,
  ) {
    super()
  }
  async connect(): Promise<void> {
    if (this.fails) throw new Error('connect ECONNREFUSED (simulated)')
  }
  query(): Promise<void> {
    return this.hangs ? new Promise(() => {}) : Promise.resolve()
  }
  async end(): Promise<void> {
    this.ended = true
  }
  drop(): void {
    this.emit('error', new Error('Connection terminated unexpectedly (simulated)'))
  }
}

/** A listener over fake connections whose first `failures` connects fail. */
function fakeListener(failures = 0) {
  const connections: FakeConnection[] = []
  const payloads: string[] = []
  let gaps = 0
  const subscription = pgChannelListener(
    () => {
      const connection = new FakeConnection(failures-- > 0)
      connections.push(connection)
      return connection
    },
    'channel',
    (payload) => payloads.push(payload),
    () => gaps++,
  )
  return {
    subscription,
    connections,
    payloads,
    gaps: () => gaps,
  }
}

const account: Principal = { accountId: 'acc_1', kind: 'account', passcodeId: 'pc_1', passcodeName: 'One' }
const user: Principal = { accountId: 'acc_2', kind: 'user', userId: 'u_1' }

describe('listening again after a gap', () => {
  it('reports no gap for the first LISTEN', async () => {
    const listener = fakeListener()
    await listener.subscription.ready
    expect(listener.gaps()).toBe(0)
    await listener.subscription.stop()
  })

  it('reports a gap once listening resumes after the connection dropped, and again after each drop', async () => {
    const listener = fakeListener()
    await listener.subscription.ready
    listener.connections[0]!.drop()
    expect(listener.gaps()).toBe(0)
    await eventually(() => expect(listener.gaps()).toBe(1), 2_000)
    expect(listener.connections).toHaveLength(2)
    expect(listener.connections[0]!.ended).toBe(true)

    listener.connections[1]!.drop()
    await eventually(() => expect(listener.gaps()).toBe(2), 2_000)
    await listener.subscription.stop()
  })

  it('drops a connection whose LISTEN is not answered within the statement deadline, and listens on a new one', async () => {
    // Cut between its connect and its LISTEN: no error ever comes, and until a LISTEN is active there is nothing to renew.
    vi.useFakeTimers()
    try {
      const connections: FakeConnection[] = []
      let gaps = 0
      const subscription = pgChannelListener(
        () => {
          const connection = new FakeConnection(false, connections.length === 0)
          connections.push(connection)
          return connection
        },
        'channel',
        () => {},
        () => gaps++,
      )
      let ready = false
      void subscription.ready.then(() => (ready = true))
      await vi.advanceTimersByTimeAsync(STATEMENT_DEADLINE_MS - 1)
      expect(connections).toHaveLength(1)
      expect(ready).toBe(false)
      // At the deadline the connection is ended, and the next one (after the first retry's 100 ms) listens.
      await vi.advanceTimersByTimeAsync(1 + 100)
      expect(connections[0]!.ended).toBe(true)
      expect(connections).toHaveLength(2)
      expect(ready).toBe(true)
      expect(gaps).toBe(1)
      await subscription.stop()
    } finally {
      vi.useRealTimers()
    }
  })

  it('reports a gap when the first LISTEN only succeeded after failed attempts', async () => {
    // Meanwhile the host may have cached credentials it could not hear about.
    const listener = fakeListener(2)
    await listener.subscription.ready
    expect(listener.connections).toHaveLength(3)
    expect(listener.gaps()).toBe(1)
    await listener.subscription.stop()
  })

  it('the store delivers { type: "all" } to its subscribers at each gap, and the cache empties', async () => {
    let onGap: (() => void) | undefined
    const database: Database = {
      query: async () => [],
      transaction: async (fn) => fn({ query: async () => [] }),
      listen(_channel, _onPayload, gap) {
        onGap = gap
        return { ready: Promise.resolve(), stop: async () => {} }
      },
    }
    const hub = invalidationHub(database, 'channel', true)
    const received: Invalidation[] = []
    hub.subscribe((invalidation) => received.push(invalidation))
    const cache = new VerificationCache({ ttlMs: 60_000, maxEntries: 100 })
    hub.subscribe((invalidation) => cache.invalidate(invalidation))
    cache.set('value-1', account, null, 0, cache.generation)
    cache.set('value-2', user, null, 0, cache.generation)
    const before = cache.generation
    expect(cache.size).toBe(2)

    expect(onGap).toBeTypeOf('function')
    onGap!()
    expect(received).toEqual([{ type: 'all' }])
    expect(cache.size).toBe(0)
    expect(cache.get('value-1', 'acc_1', 1)).toBeUndefined()
    // A lookup that started before the gap must not cache what it read.
    cache.set('value-1', account, null, 1, before)
    expect(cache.size).toBe(0)
    await hub.close()
  })
})
