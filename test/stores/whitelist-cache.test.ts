import { describe, expect, it } from 'vitest'
import type { Database } from '../../src/stores/postgres/database-interface'
import { PARTNERS_CHANGED, WHITELIST_TTL_MS, whitelistCache } from '../../src/stores/postgres/whitelist-cache'

/** A database whose LISTEN and reads the test drives by hand. */
function fakeDatabase() {
  const listeners: { onPayload: (payload: string) => void; onGap?: () => void }[] = []
  let resolveReady: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    resolveReady = resolve
  })
  let stopped = 0
  const database = {
    listen(_channel: string, onPayload: (payload: string) => void, onGap?: () => void) {
      listeners.push({ onPayload, ...(onGap === undefined ? {} : { onGap }) })
      return {
        ready,
        stop: async () => {
          stopped++
        },
      }
    },
  } as unknown as Database
  return {
    database,
    listening: () => resolveReady(),
    notify: (payload: string) => listeners.forEach((listener) => listener.onPayload(payload)),
    gap: () => listeners.forEach((listener) => listener.onGap?.()),
    stopped: () => stopped,
  }
}

/** Reads the test resolves one by one, in order. */
function manualLoads() {
  const pending: { resolve: (names: string[]) => void }[] = []
  let count = 0
  return {
    loadAll: () => {
      count++
      return new Promise<readonly string[]>((resolve) => pending.push({ resolve }))
    },
    answer: (names: string[]) => pending.shift()!.resolve(names),
    count: () => count,
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('whitelistCache', () => {
  function setup(now = () => 0) {
    const db = fakeDatabase()
    const loads = manualLoads()
    let oneReads = 0
    const cache = whitelistCache({
      database: db.database,
      channel: 'test_channel',
      listen: true,
      loadAll: loads.loadAll,
      loadOne: async (name) => {
        oneReads++
        return name === 'acme'
      },
      now,
    })
    /** LISTEN active and the list loaded into memory. */
    const loaded = async (names: string[]) => {
      db.listening()
      void cache.has('acme')
      await tick()
      const first = cache.has('acme')
      loads.answer(names)
      await first
    }
    return { db, loads, cache, loaded, oneReads: () => oneReads }
  }

  it('reads the database per lookup until LISTEN is active, then loads the list once for all waiting lookups', async () => {
    const { db, loads, cache, oneReads } = setup()
    expect(await cache.has('acme')).toBe(true)
    expect(oneReads()).toBe(1)
    db.listening()
    await tick()
    const waiting = [cache.has('acme'), cache.has('initech'), cache.has('acme')].map((answer) => Promise.resolve(answer))
    expect(loads.count()).toBe(1)
    loads.answer(['acme'])
    expect(await Promise.all(waiting)).toEqual([true, false, true])
    expect(cache.has('acme')).toBe(true) // from memory, synchronously
    expect(cache.has('initech')).toBe(false)
    expect(loads.count()).toBe(1)
    expect(oneReads()).toBe(1)
  })

  it('drops the list on a partners notification and on a LISTEN gap, and ignores other payloads', async () => {
    const { db, loads, cache, loaded } = setup()
    await loaded(['acme'])
    expect(cache.has('acme')).toBe(true)

    db.notify('{"type":"account","accountId":"acc_1"}')
    expect(cache.has('acme')).toBe(true) // a store invalidation changes no partner
    db.notify(PARTNERS_CHANGED)
    const afterChange = cache.has('acme')
    expect(afterChange).toBeInstanceOf(Promise)
    loads.answer([])
    expect(await afterChange).toBe(false)
    expect(cache.has('acme')).toBe(false)

    db.gap()
    const afterGap = cache.has('globex')
    expect(afterGap).toBeInstanceOf(Promise)
    loads.answer(['globex'])
    expect(await afterGap).toBe(true)
  })

  it('does not keep a load that a change overtook, and lookups after the change wait for a load of their own', async () => {
    const { db, loads, cache } = setup()
    db.listening()
    void cache.has('acme')
    await tick()
    const before = cache.has('acme') // load 1 starts: it may read the list from before the change
    db.notify(PARTNERS_CHANGED) // acme removed meanwhile
    const after = cache.has('acme') // must not join load 1
    expect(loads.count()).toBe(2)
    loads.answer(['acme']) // load 1: stale
    loads.answer([]) // load 2
    expect(await before).toBe(true)
    expect(await after).toBe(false)
    expect(cache.has('acme')).toBe(false) // memory holds load 2, not load 1
  })

  it('trusts a loaded list for the TTL only, so an unnoticed dead LISTEN cannot keep a partner forever', async () => {
    let now = 1_000
    const { loads, cache, loaded } = setup(() => now)
    await loaded(['acme'])
    now += WHITELIST_TTL_MS - 1
    expect(cache.has('acme')).toBe(true)
    now += 1
    const expired = cache.has('acme')
    expect(expired).toBeInstanceOf(Promise)
    loads.answer([])
    expect(await expired).toBe(false)
  })

  it('drop() forgets at once (the instance changed the list itself); close() stops listening', async () => {
    const { db, loads, cache, loaded } = setup()
    await loaded(['acme'])
    cache.drop()
    expect(cache.has('acme')).toBeInstanceOf(Promise)
    loads.answer([])
    await cache.close()
    expect(db.stopped()).toBe(1)
  })
})
