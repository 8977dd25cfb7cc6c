import type { PasscodeStore, StoredUsageCount } from '../../ports/passcode-store'
import { storeCall } from '../deadline'
import type { UsageDay, UsageReader } from '../views'
import { dayOf, dayText } from './day-counts'

interface PartnerLine {
  partner: string
  succeeded: number
  wrongPartner: number
}
type MutableDay = { -readonly [K in Exclude<keyof UsageDay, 'partners'>]: UsageDay[K] } & { partners: PartnerLine[] }

const FIELD = {
  succeeded: 'succeeded',
  expired: 'expired',
  disabled: 'disabled',
  revoked: 'revoked',
  wrong_partner: 'wrongPartner',
  rotated_out: 'rotatedOut',
  // SPEC §5.48, §5.49
  missing_scope: 'missingScope',
  address: 'address',
  rate_limited: 'rateLimited',
  credits_exhausted: 'creditsExhausted',
} as const

/** Folds stored rows (day, partner, outcome, n) into days. */
export function usageDays(rows: readonly StoredUsageCount[]): UsageDay[] {
  const days = new Map<string, MutableDay>()
  for (const { day, partner, outcome, n } of rows) {
    let entry = days.get(day)
    if (entry === undefined) {
      entry = {
        date: day,
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
      }
      days.set(day, entry)
    }
    const field = FIELD[outcome]
    entry[field] += n
    if (partner !== '' && (field === 'succeeded' || field === 'wrongPartner')) {
      let line = entry.partners.find((p) => p.partner === partner)
      if (line === undefined) {
        line = { partner, succeeded: 0, wrongPartner: 0 }
        entry.partners.push(line)
      }
      line[field] += n
    }
  }
  const out = [...days.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
  for (const day of out) {
    day.partners.sort((a, b) => b.succeeded + b.wrongPartner - (a.succeeded + a.wrongPartner) || (a.partner < b.partner ? -1 : 1))
  }
  return out
}

/**
 * Reads one credential's kept days from the store (none when it keeps no usage
 * history): `retentionDays` UTC days up to today by `now`.
 *
 * @example
 * ```ts
 * const readUsage = usageReader(store, Date.now, 90)
 * const { days } = await readUsage('account', 'acc_1', passcodeId)
 * ```
 */
export function usageReader(store: PasscodeStore, now: () => number, retentionDays: number): UsageReader {
  return async (kind, accountId, key) => {
    const today = dayOf(now())
    const from = dayText(today - retentionDays + 1)
    const rows = store.listUsageCounts === undefined ? [] : await storeCall(() => store.listUsageCounts({ kind, accountId, key, from }))
    return { from, to: dayText(today), days: usageDays(rows) }
  }
}
