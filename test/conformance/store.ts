import { afterEach, beforeEach, describe } from 'vitest'
import { accountPasscodeCases } from './store/account-passcodes'
import { accountPolicyCases } from './store/account-policies'
import { auditCases } from './store/audit'
import { bindingRotationUsageCases } from './store/binding-rotation-usage'
import { concurrencyCases } from './store/concurrency'
import { disableDescriptionCases } from './store/disable-description'
import { restrictionCases } from './store/restrictions'
import { endToEndCases } from './store/end-to-end'
import { interleavedWriteCases } from './store/interleaved-writes'
import type { StoreConformanceOptions, StoreFixture } from './store/fixtures'
import { invalidationCases } from './store/invalidations'
import { lastUseCases } from './store/last-use'
import { limitCases } from './store/limits'
import { leakMarkCases } from './store/leak-marks'
import { leakedRotationCases } from './store/leaked-rotation'
import { lookupCases } from './store/lookup'
import { notificationCases } from './store/notifications'
import { pepperOverlapCases } from './store/pepper-overlap'
import { pepperRotationCases } from './store/pepper-rotation'
import { unicodeNameCases } from './store/unicode-names'
import { userPasscodeCases } from './store/user-passcodes'
import { usageDaysCases } from './store/usage-days'
import { webhookCases } from './store/webhooks'

export type { StoreConformanceOptions, StoreFixture } from './store/fixtures'

/**
 * The store conformance suite: the behaviour every {@link PasscodeStore} must show,
 * with the memory store as the reference. A store adapter is done when it passes
 * this suite. Each test gets a fresh, isolated storage from `open()`; `peer()` gives
 * it more instances over the same storage for the cross-instance cases (cap and names
 * under 300 concurrent creates on 3 instances, 4 concurrent notification claimers,
 * invalidations reaching another instance within a second).
 *
 * @param name - the label of the `describe` block, for example `'memoryStore'`
 * @param options - `open` makes a fixture; `queryPlan` adds the EXPLAIN check
 * @example
 * ```ts
 * storeConformance('memoryStore', {
 *   open: async () => {
 *     const store = memoryStore()
 *     return { store, peer: async () => store, close: () => store.close!() }
 *   },
 * })
 * ```
 */
export function storeConformance(name: string, options: StoreConformanceOptions & { queryPlan?: boolean }): void {
  describe(name, () => {
    let current: StoreFixture | undefined
    const fixture = (): StoreFixture => {
      if (current === undefined) throw new Error('the store fixture is not open')
      return current
    }
    beforeEach(async () => {
      current = await options.open()
    })
    afterEach(async () => {
      const closing = current
      current = undefined
      await closing?.close()
    })

    accountPasscodeCases(fixture)
    unicodeNameCases(fixture)
    bindingRotationUsageCases(fixture)
    userPasscodeCases(fixture)
    notificationCases(fixture)
    invalidationCases(fixture)
    concurrencyCases(fixture)
    lookupCases(fixture, options.queryPlan ?? false)
    endToEndCases(fixture)
    auditCases(fixture)
    pepperRotationCases(fixture)
    interleavedWriteCases(fixture)
    pepperOverlapCases(fixture)
    disableDescriptionCases(fixture)
    restrictionCases(fixture)
    usageDaysCases(fixture)
    lastUseCases(fixture)
    leakMarkCases(fixture)
    leakedRotationCases(fixture)
    accountPolicyCases(fixture)
    webhookCases(fixture)
    limitCases(fixture)
  })
}
