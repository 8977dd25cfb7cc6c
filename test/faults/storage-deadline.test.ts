import { performance } from 'node:perf_hooks'
import { setTimeout as realDelay } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, generatePasscode, type PasscodeAuth, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import type { RunningApp } from '../conformance/http'
import { eventually } from '../conformance/store/fixtures'
import { admin } from '../helpers/service'
import { FRAMEWORKS } from '../http/frameworks'
import { sendRaw, type RawRequest } from '../http/raw-client'

/**
 * Storage that throws answers 503 at once; storage that hangs answers 504 once the
 * deadline (timeoutMs) is spent: through every adapter, over HTTP.
 *
 * The service's clock is faked (setTimeout and Date; sockets and I/O stay real), so the
 * deadline is the only thing that can end a hung request, at a known moment: no answer
 * comes while the clock stands one millisecond short of the deadline, every one comes
 * once it is spent (the hung store never answers, so only the deadline can end them),
 * and a throwing store answers while the clock never moves. How late a real timer fires
 * on a real machine is a matter of measurement, not of this test.
 */

const DEADLINE_MS = 300
const SAMPLES = 5
const SERVER_ERROR = (code: number) => `{"status":"fail","error":"Server Error","code":${code}}`

type Mode = 'normal' | 'throws' | 'hangs'

/** A memory store whose verification lookup can be made to throw or hang. */
function faultyStore(mode: () => Mode, hanging: { calls: number }): PasscodeStore {
  const store = memoryStore()
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property !== 'findCredentialByHash') return value
      return (hash: string) => {
        if (mode() === 'throws') return Promise.reject(new Error('simulated outage: connection refused'))
        if (mode() === 'hangs') {
          hanging.calls++
          return new Promise<never>(() => {})
        }
        return store.findCredentialByHash(hash)
      }
    },
  })
}

/** Waits, in real time and without the faked timers, until `done()` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  const started = performance.now()
  while (!done()) {
    if (performance.now() - started > 10_000) throw new Error(`still waiting after 10 s for ${what}`)
    await realDelay(5)
  }
}

describe('storage faults over HTTP, every adapter', () => {
  let mode: Mode = 'normal'
  const hanging = { calls: 0 }
  let auth: PasscodeAuth
  let active: string
  const accountId = 'acc_faults'

  beforeAll(async () => {
    // No cache: every request below must reach the (faulty) store.
    auth = createPasscodeAuth({ store: faultyStore(() => mode, hanging), partners: ['acme'], timeoutMs: DEADLINE_MS, cache: false })
    active = (await auth.passcodes.create(admin, accountId, { name: 'Partner', expiry: 90 })).value
  })
  afterAll(() => auth.close())

  const requests = (passcode: string): RawRequest[] => {
    const headers = [
      ['X-Service-Account-Id', accountId],
      ['X-Service-Passcode', passcode],
    ] as const
    return [
      { target: '/v1/connect?partner=acme', headers },
      { target: '/1/events.json', headers },
    ]
  }

  /**
   * Sends each request `SAMPLES` times at once, each with its own passcode (so that each
   * one reaches the store itself), and counts the answers as they come.
   */
  const send = (app: RunningApp) => {
    const answered = { count: 0 }
    const responses = Promise.all(
      Array.from({ length: SAMPLES }, () => [0, 1].map((kind) => requests(generatePasscode())[kind]!)).flatMap((pair) =>
        pair.map(async (request) => {
          const response = await sendRaw(app.port, request, 10_000)
          answered.count++
          return { status: response.status, body: response.body.toString('utf8') }
        }),
      ),
    )
    return { answered, responses, count: SAMPLES * 2 }
  }

  afterEach(() => {
    vi.useRealTimers()
  })

  for (const framework of FRAMEWORKS) {
    describe(framework.name, () => {
      let app: RunningApp
      beforeAll(async () => {
        app = await framework.start(auth)
        // First requests pay for lazy loading and compilation: not what is measured here.
        await Promise.all(requests(active).map((request) => sendRaw(app.port, request)))
      })
      afterAll(async () => {
        mode = 'normal'
        await app.close()
      })

      it(`storage that hangs: 504 when the deadline (${DEADLINE_MS} ms) is spent, not before`, async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
        mode = 'hangs'
        const calls = hanging.calls
        const batch = send(app)
        await until(() => hanging.calls === calls + batch.count, 'every request to reach the store')
        vi.advanceTimersByTime(DEADLINE_MS - 1)
        await realDelay(100)
        expect(batch.answered.count).toBe(0)
        vi.advanceTimersByTime(1)
        for (const result of await batch.responses) expect(result).toEqual({ status: 504, body: SERVER_ERROR(504) })
        mode = 'normal'
      })

      it('storage that throws: 503 without waiting for the deadline', async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
        mode = 'throws'
        // The clock never moves: the deadline cannot be what answers.
        for (const result of await send(app).responses) expect(result).toEqual({ status: 503, body: SERVER_ERROR(503) })
        mode = 'normal'
      })

      it('answers normally again as soon as storage does', async () => {
        mode = 'hangs'
        const calls = hanging.calls
        const hung = sendRaw(app.port, requests(active)[0]!)
        await eventually(() => expect(hanging.calls).toBe(calls + 1), 5_000)
        mode = 'normal'
        expect((await hung).status).toBe(504)
        const [connect, events] = await Promise.all(requests(active).map((request) => sendRaw(app.port, request)))
        expect(connect!.status).toBe(200)
        expect(connect!.body.toString()).toBe('{"status":"success","message":"Authorised Successfully."}')
        expect(events!.status).toBe(200)
      })
    })
  }
})
