import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, type ConnectResult, type PartnerRegistry, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { admin } from '../helpers/service'

/**
 * SPEC §5.23: `timeoutMs` bounds the whole of a verification or connect, not each
 * storage call. Fake timers drive every delay, so the test says when each answer came
 * in the service's own time, whatever the machine is doing.
 */

const DEADLINE = 2_000
const SLOW = 1_900

/** A memory store whose verification lookup answers after `delayMs`. */
function slowStore(delayMs: number): PasscodeStore {
  const store = memoryStore()
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property !== 'findCredentialByHash') return value
      return (hash: string) => new Promise((resolve) => setTimeout(() => resolve(target.findCredentialByHash(hash)), delayMs))
    },
  })
}

const slowPartners = (delayMs: number): PartnerRegistry => ({
  isWhitelisted: (name) => new Promise((resolve) => setTimeout(() => resolve(name === 'acme'), delayMs)),
})

/** Runs `connect` and says when (in fake time) it answered. */
async function timed(call: () => Promise<ConnectResult>): Promise<{ result: ConnectResult; afterMs: number }> {
  const start = Date.now()
  let answeredAt: number | undefined
  const pending = call().then((result) => ((answeredAt = Date.now()), result))
  while (answeredAt === undefined && Date.now() - start < 10_000) await vi.advanceTimersByTimeAsync(10)
  return { result: await pending, afterMs: answeredAt! - start }
}

describe('SPEC 5.23 one deadline per request', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  async function service() {
    const auth = createPasscodeAuth({ store: slowStore(SLOW), partners: slowPartners(SLOW), timeoutMs: DEADLINE, cache: false })
    const created = auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const { value } = await created
    return { auth, credentials: { accountId: 'acc_1', passcode: value } }
  }

  it('answers 504 within the budget + 100 ms when a 1.9 s store lookup and a 1.9 s partner lookup together pass 2 s', async () => {
    const { auth, credentials } = await service()
    const { result, afterMs } = await timed(() => auth.connect({ credentials, partner: 'acme' }))
    expect(result).toMatchObject({ statusCode: 504, reason: 'storage_timeout', body: { status: 'fail', error: 'Server Error', code: 504 } })
    expect(afterMs).toBeGreaterThanOrEqual(DEADLINE)
    expect(afterMs).toBeLessThanOrEqual(DEADLINE + 100)
  })

  it('answers 200 when both lookups fit in the budget together', async () => {
    const auth = createPasscodeAuth({ store: slowStore(900), partners: slowPartners(900), timeoutMs: DEADLINE, cache: false })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const { result, afterMs } = await timed(() => auth.connect({ credentials: { accountId: 'acc_1', passcode: value }, partner: 'acme' }))
    expect(result.statusCode).toBe(200)
    expect(afterMs).toBeGreaterThanOrEqual(1_800)
    expect(afterMs).toBeLessThan(DEADLINE)
  })

  it('gives each request its own budget: a second connect after a slow first one has the full deadline', async () => {
    const { auth, credentials } = await service()
    await timed(() => auth.connect({ credentials, partner: 'acme' }))
    const { result, afterMs } = await timed(() =>
      auth
        .authenticate(credentials)
        .then((outcome) => ({ statusCode: outcome.ok ? 200 : outcome.statusCode, body: { status: 'success', message: 'Authorised Successfully.' } })),
    )
    expect(result.statusCode).toBe(200)
    expect(afterMs).toBeGreaterThanOrEqual(SLOW)
    expect(afterMs).toBeLessThan(DEADLINE)
  })
})
