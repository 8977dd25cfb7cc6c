import { once } from 'node:events'
import { createServer, connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, type AuditEvent } from '../../src/index'
import type { Invalidation, PasscodeStore } from '../../src/ports/passcode-store'
import { memoryStore } from '../../src/memory'
import type { Database } from '../../src/stores/postgres/database-interface'
import { deliveryProof, type ProofState } from '../../src/stores/postgres/delivery-proof'
import { whitelistCache } from '../../src/stores/postgres/whitelist-cache'
import { eventually } from '../conformance/store/fixtures'
import { admin } from '../helpers/service'

/**
 * The liveness proof of a listening connection (SPEC §5.32), on fake timers: what it
 * reports and when, and what the service does with it. The real faults (a silent cut,
 * a transaction pooler) are in silent-cut.test.ts and pgbouncer.test.ts.
 */

afterEach(() => {
  vi.useRealTimers()
})

/** A proof whose notifications come back only while `delivering`. */
function harness(intervalMs = 1_000) {
  const states: ProofState[] = []
  const heard: number[] = []
  let renewals = 0
  let delivering = true
  const proof = deliveryProof({
    send: async (payload) => {
      if (delivering) queueMicrotask(() => proof.heard(payload))
    },
    renew: () => renewals++,
    intervalMs,
    report: (state) => states.push(state),
    fresh: (until) => heard.push(until),
  })
  return {
    proof,
    states,
    /** Each `until` the proofs heard back gave. */
    heard,
    renewals: () => renewals,
    deliver: (on: boolean) => {
      delivering = on
    },
  }
}

describe('SPEC 5.32 deliveryProof', () => {
  it('says nothing while delivery holds; once it fails, says so within 1.5 intervals, renews the connection, and says when it is back', async () => {
    vi.useFakeTimers()
    const h = harness(1_000)
    h.proof.listening()
    await vi.advanceTimersByTimeAsync(3_000)
    expect(h.states).toEqual([])
    expect(h.proof.state()).toEqual({ proven: true })

    h.deliver(false)
    // The next proof leaves at most one interval later and is given half an interval.
    await vi.advanceTimersByTimeAsync(1_500)
    expect(h.states).toEqual([{ proven: false, message: expect.stringContaining('stopped delivering') }])
    expect(h.renewals()).toBe(1)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(h.states).toHaveLength(1) // reported once, however long it lasts

    h.deliver(true)
    h.proof.listening() // the renewed connection's LISTEN is active: proven at once (two proofs in a row)
    await vi.advanceTimersByTimeAsync(0)
    expect(h.states).toEqual([{ proven: false, message: expect.any(String) }, { proven: true }])
    h.proof.stop()
  })

  it('when delivery never worked (a transaction pooler), says so once, with the fix', async () => {
    vi.useFakeTimers()
    const h = harness(5_000)
    h.deliver(false)
    h.proof.listening()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(h.states).toHaveLength(1)
    const [state] = h.states
    expect(state).toMatchObject({ proven: false })
    expect(!state!.proven && state!.message).toContain('listenConnectionString')
    h.proof.stop()
  })

  it('does not call a proof lost when its answer arrived in time while the process was busy: what arrived is read first', async () => {
    // The answer comes back over a real socket, as the listening connection's does, and
    // arrives while a callback holds the event loop past the wait (a long request
    // handler, GC, a loaded machine). Node runs expired timers before it reads sockets:
    // a verdict taken in the timer would call lost a proof whose answer was waiting.
    const server = createServer()
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    const pair = async (): Promise<[Socket, Socket]> => {
      const near = connect(port, '127.0.0.1')
      const [far] = (await once(server, 'connection')) as [Socket]
      await once(near, 'connect')
      return [near, far]
    }
    const [listening, database] = await pair()
    const [busyNear, busyFar] = await pair()
    const states: ProofState[] = []
    let stalls = 0
    const proof = deliveryProof({
      // A proof while stalls are due: another socket's callback answers it, then holds the loop 200 ms (the wait is 50).
      send: async (payload) => {
        if (stalls-- > 0) busyFar.write(payload)
        else database.write(payload)
      },
      renew: () => undefined,
      intervalMs: 100,
      report: (state) => states.push(state),
    })
    busyNear.setEncoding('utf8')
    busyNear.on('data', (payload: string) => {
      database.write(payload)
      const until = performance.now() + 200
      while (performance.now() < until) {
        // busy
      }
    })
    listening.setEncoding('utf8')
    listening.on('data', (payload: string) => proof.heard(payload))
    try {
      proof.listening()
      await eventually(() => expect(proof.state()).toEqual({ proven: true }), 2_000)
      stalls = 3
      await eventually(() => expect(stalls).toBeLessThan(0), 3_000)
      await new Promise((resolve) => setTimeout(resolve, 150))
      expect(states).toEqual([])
      expect(proof.state()).toEqual({ proven: true })
    } finally {
      proof.stop()
      for (const socket of [listening, database, busyNear, busyFar]) socket.destroy()
      server.close()
    }
  })

  it('bounds what is trusted by each proof heard back: until 1.8 intervals after it was sent, on the monotonic clock read before the send', async () => {
    // A process whose proofs run late (a starved event loop) is past that instant before
    // any timer of its own can say so: its caches then answer nothing (SPEC §5.32, 10 s).
    vi.useFakeTimers()
    const h = harness(5_000)
    const sentAt = performance.now()
    h.proof.listening()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.heard).toEqual([sentAt + 9_000])
    await vi.advanceTimersByTimeAsync(5_000)
    expect(h.heard).toEqual([sentAt + 9_000, sentAt + 14_000])
    h.deliver(false)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(h.heard).toHaveLength(2) // nothing heard, nothing extended
    h.proof.stop()
  })

  it("recognises every proof payload, its own or another instance's, and no invalidation", () => {
    const h = harness()
    expect(h.proof.heard('{"type":"proof","id":"someone-else.1"}')).toBe(true)
    expect(h.proof.heard('{"type":"account","accountId":"acc_1"}')).toBe(false)
    h.proof.stop()
  })
})

describe('SPEC 5.32 the partner whitelist while delivery is unproven', () => {
  it('reads the database per lookup until proven again, then loads the list afresh', async () => {
    let onPayload: ((payload: string) => void) | undefined
    let delivering = true
    const database: Database = {
      async query(_text, params) {
        const payload = String(params?.[1])
        if (delivering) setTimeout(() => onPayload?.(payload), 1)
        return []
      },
      transaction: async (fn) => fn({ query: async () => [] }),
      listen(_channel, payloads) {
        onPayload = payloads
        return { ready: Promise.resolve(), stop: async () => {} }
      },
    }
    let loads = 0
    let lookups = 0
    const cache = whitelistCache({
      database,
      channel: 'proof_channel',
      listen: true,
      listenOptions: { proofIntervalMs: 100 },
      loadAll: async () => {
        loads++
        return ['acme']
      },
      loadOne: async (name) => {
        lookups++
        return name === 'acme'
      },
    })
    const fromMemory = async () => {
      await cache.has('acme')
      return cache.has('acme') === true
    }
    await eventually(async () => expect(await fromMemory()).toBe(true), 2_000)

    delivering = false
    await eventually(async () => expect(await fromMemory()).toBe(false), 2_000)
    const before = lookups
    expect(await cache.has('acme')).toBe(true)
    expect(lookups).toBe(before + 1) // read from the database
    const loadsWhileUnproven = loads

    delivering = true
    await eventually(async () => expect(await fromMemory()).toBe(true), 2_000)
    expect(loads).toBe(loadsWhileUnproven + 1)
    await cache.close()
  })

  it('reads the database per lookup once the last proof heard back is 1.8 intervals old, before any timer says so (a starved loop)', async () => {
    let onPayload: ((payload: string) => void) | undefined
    const database: Database = {
      async query(_text, params) {
        const payload = String(params?.[1])
        setTimeout(() => onPayload?.(payload), 1)
        return []
      },
      transaction: async (fn) => fn({ query: async () => [] }),
      listen(_channel, payloads) {
        onPayload = payloads
        return { ready: Promise.resolve(), stop: async () => {} }
      },
    }
    let lookups = 0
    const cache = whitelistCache({
      database,
      channel: 'fresh_channel',
      listen: true,
      listenOptions: { proofIntervalMs: 100 },
      loadAll: async () => ['acme'],
      loadOne: async (name) => {
        lookups++
        return name === 'acme'
      },
    })
    await eventually(async () => {
      await cache.has('acme')
      expect(cache.has('acme')).toBe(true)
    }, 2_000)
    // The loop held for 300 ms: no timer ran, no proof went out or came back.
    const until = performance.now() + 300
    while (performance.now() < until) {
      // busy
    }
    const before = lookups
    expect(await cache.has('acme')).toBe(true)
    expect(lookups).toBe(before + 1)
    await cache.close()
  })
})

describe('SPEC 5.32 the service while delivery is unproven', () => {
  /** A memory store whose subscribers the test reaches, counting verification reads. */
  function storeWithChannel() {
    const inner = memoryStore()
    const listeners = new Set<(invalidation: Invalidation) => void>()
    let reads = 0
    const store: PasscodeStore = {
      ...inner,
      findCredentialByHash(hash) {
        reads++
        return inner.findCredentialByHash(hash)
      },
      subscribe(listener) {
        listeners.add(listener)
        const off = inner.subscribe(listener)
        return () => {
          listeners.delete(listener)
          off()
        }
      },
    }
    return { store, reads: () => reads, send: (invalidation: Invalidation) => listeners.forEach((listener) => listener(invalidation)) }
  }

  it('trusts no cached acceptance or refusal until proven again, then caches afresh; each change is an event', async () => {
    const { store, reads, send } = storeWithChannel()
    const events: AuditEvent[] = []
    const auth = createPasscodeAuth({ store, partners: ['acme'], onEvent: (event) => void events.push(event) })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'One', expiry: 90 })
    const { value: other } = await auth.passcodes.create(admin, 'acc_2', { name: 'Two', expiry: 90 })
    const verify = (passcode: string, accountId = 'acc_1') => auth.authenticate({ accountId, passcode })

    expect(await verify(value)).toMatchObject({ ok: true })
    expect(await verify(other)).toMatchObject({ ok: false }) // another account's: a cached refusal
    const warm = reads()
    expect(await verify(value)).toMatchObject({ ok: true })
    expect(await verify(other)).toMatchObject({ ok: false })
    expect(reads()).toBe(warm)

    send({ type: 'unproven', message: 'test: delivery lost' })
    expect(events.filter((event) => event.type.startsWith('invalidations.'))).toEqual([
      { type: 'invalidations.unproven', at: expect.any(Date), message: 'test: delivery lost' },
    ])
    for (let i = 1; i <= 3; i++) {
      expect(await verify(value)).toMatchObject({ ok: true })
      expect(await verify(other)).toMatchObject({ ok: false })
      expect(reads()).toBe(warm + 2 * i) // every verification reads the store
    }

    send({ type: 'proven' })
    expect(events.filter((event) => event.type.startsWith('invalidations.')).map((event) => event.type)).toEqual([
      'invalidations.unproven',
      'invalidations.proven',
    ])
    expect(await verify(value)).toMatchObject({ ok: true })
    const cachedAgain = reads()
    expect(await verify(value)).toMatchObject({ ok: true })
    expect(reads()).toBe(cachedAgain)
    await auth.close()
  })

  it('answers from its caches only until the `until` of the last proof heard back: past it, each verification reads the store, whatever its timers did', async () => {
    // The failure of the fleet soak beside busy loops (a revoked passcode accepted 10 s
    // after the change): the proof's own timers ran late on a starved instance, so the
    // loss of delivery was said past the bound while the cache kept answering.
    const { store, reads, send } = storeWithChannel()
    const auth = createPasscodeAuth({ store, partners: ['acme'] })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'One', expiry: 90 })
    const { value: other } = await auth.passcodes.create(admin, 'acc_2', { name: 'Two', expiry: 90 })
    const verify = (passcode: string) => auth.authenticate({ accountId: 'acc_1', passcode })
    send({ type: 'fresh', until: performance.now() + 60_000 })
    expect(await verify(value)).toMatchObject({ ok: true })
    expect(await verify(other)).toMatchObject({ ok: false })
    const warm = reads()
    expect(await verify(value)).toMatchObject({ ok: true })
    expect(await verify(other)).toMatchObject({ ok: false })
    expect(reads()).toBe(warm) // both cached

    send({ type: 'fresh', until: performance.now() - 1 }) // the last proof heard is that old: no timer needed
    for (let i = 1; i <= 2; i++) {
      expect(await verify(value)).toMatchObject({ ok: true })
      expect(await verify(other)).toMatchObject({ ok: false })
      expect(reads()).toBe(warm + 2 * i)
    }

    // A proof heard again: what is held (kept up to date by every invalidation meanwhile) answers again.
    send({ type: 'fresh', until: performance.now() + 60_000 })
    const now = reads()
    expect(await verify(value)).toMatchObject({ ok: true })
    expect(await verify(other)).toMatchObject({ ok: false })
    expect(reads()).toBe(now)
    await auth.close()
  })

  it('counts each change on passcode_auth.invalidations.delivery_changes, by passcode_auth.invalidations.proven', async () => {
    const { store, send } = storeWithChannel()
    const added: { name: string; value: number; attributes: unknown }[] = []
    const meter = {
      createCounter: (name: string) => ({ add: (value: number, attributes?: unknown) => void added.push({ name, value, attributes }) }),
      createHistogram: () => ({ record: () => {} }),
    }
    const auth = createPasscodeAuth({ store, partners: ['acme'], telemetry: { meter } })
    send({ type: 'unproven', message: 'test: delivery lost' })
    send({ type: 'proven' })
    expect(added.filter((entry) => entry.name === 'passcode_auth.invalidations.delivery_changes')).toEqual([
      { name: 'passcode_auth.invalidations.delivery_changes', value: 1, attributes: { 'passcode_auth.invalidations.proven': false } },
      { name: 'passcode_auth.invalidations.delivery_changes', value: 1, attributes: { 'passcode_auth.invalidations.proven': true } },
    ])
    await auth.close()
  })
})
