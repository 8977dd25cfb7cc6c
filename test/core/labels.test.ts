import { describe, expect, it } from 'vitest'
import { ACCEPTED_PASSCODES_LABELS, STATUS_LABELS, statusLabel } from '../../src/dashboard/index'
import type { PasscodeStatus } from '../../src/index'

/** The words the dashboard and the command share (src/core/labels.ts): SPEC §5.29's "Expiring soon" among them. */

describe('labels', () => {
  it('names every status, and passes an unknown one through as it is', () => {
    const statuses: PasscodeStatus[] = ['active', 'expiring_soon', 'expired', 'revoked', 'disabled']
    expect(statuses.map(statusLabel)).toEqual(['Active', 'Expiring soon', 'Expired', 'Revoked', 'Disabled'])
    expect(Object.keys(STATUS_LABELS).sort()).toEqual([...statuses].sort())
    expect(statusLabel('toString')).toBe('toString')
    expect(statusLabel('paused')).toBe('paused')
  })

  it('says which passcodes an account accepts as the end of a sentence', () => {
    expect(ACCEPTED_PASSCODES_LABELS).toEqual({ account: 'account passcodes only', user: 'user passcodes only', both: 'account and user passcodes' })
  })
})
