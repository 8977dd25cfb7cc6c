// The management API's wire type: the service's own (readonly) `UsageDay` takes it too.
import type { UsageDay } from '../../src/dashboard/client/wire'

/**
 * One day of a passcode's usage (SPEC §5.41) as the service and the management API give
 * it: every count zero and no partner lines unless `counts` says otherwise.
 */
export function usageDay(date: string, counts: Partial<Omit<UsageDay, 'date'>> = {}): UsageDay {
  return {
    date,
    succeeded: 0,
    expired: 0,
    disabled: 0,
    revoked: 0,
    wrongPartner: 0,
    rotatedOut: 0,
    missingScope: 0,
    address: 0,
    rateLimited: 0,
    creditsExhausted: 0,
    partners: [],
    ...counts,
  }
}
