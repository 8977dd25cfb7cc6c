import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { nodeRequestReader, type NodeRequestLike } from '../../src/http/node/node-request'
import { admin, manualClock } from '../helpers/service'

/** SPEC §5.50: a passcode with a rate limit and credits keeps the synchronous warm path; the store sees leases, not requests. */

const reader = nodeRequestReader(
  (request: NodeRequestLike) => request,
  () => undefined,
)

describe('SPEC 5.50 the warm path with limits', () => {
  it('answers most hits synchronously and asks the store for a lease a handful of times per thousand requests', async () => {
    const store = memoryStore()
    let leases = 0
    const lease = store.leaseLimits.bind(store)
    const counted: PasscodeStore = Object.assign(Object.create(store) as PasscodeStore, {
      leaseLimits: (request: Parameters<typeof lease>[0]) => {
        leases++
        return lease(request)
      },
    })
    const clock = manualClock()
    const auth = createPasscodeAuth({ store: counted, clock, passcodeLimits: { leaseTargetMs: 1_000 } })
    const { value } = await auth.passcodes.create(admin, 'acc', {
      name: 'Metered',
      expiry: 90,
      rateLimit: { max: 1_000_000, windowSeconds: 86_400 },
      credits: { remaining: 1_000_000 },
    })
    const request = { headers: { 'x-service-account-id': 'acc', 'x-service-passcode': value } }
    let synchronous = 0
    for (let i = 0; i < 1_000; i++) {
      clock.advance(1) // 1 000 requests per second
      const result = auth.verifyRequest(request, reader)
      if (result instanceof Promise) expect((await result).ok).toBe(true)
      else synchronous++
    }
    // Leases ramp 1, 2, 4, … up to about leaseTargetMs of the rate seen: about a dozen for the first thousand.
    expect(leases).toBeLessThanOrEqual(15)
    expect(synchronous).toBeGreaterThanOrEqual(1_000 - leases - 2)
    await auth.close()
  })
})
