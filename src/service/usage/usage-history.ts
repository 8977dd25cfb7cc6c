import type { StoredUsageCount } from '../../ports/passcode-store'
import type { ServiceContext } from '../context'
import { storeCall } from '../deadline'
import { dayOf, dayText } from './day-counts'

/**
 * One UTC day of a passcode's requests (SPEC §5.41): successes, and the refusals that
 * matched it, by kind. `/v1/connect` requests are counted in these totals too, and
 * per partner in `partners`.
 *
 * @example
 * ```ts
 * const { days } = await auth.passcodes.usage(actor, 'acc_1', passcodeId)
 * const total = days.reduce((sum, day) => sum + day.succeeded, 0)
 * ```
 */
export interface UsageDay {
  /** The UTC day, `YYYY-MM-DD`. */
  readonly date: string
  /** Requests that authenticated (on `/v1/connect`: and reached their partner). */
  readonly succeeded: number
  /** Refused: the passcode had expired. */
  readonly expired: number
  /** Refused: the account passcode was disabled. */
  readonly disabled: number
  /** Refused: the user passcode was revoked. */
  readonly revoked: number
  /** `/v1/connect` refused: no partner, a partner off the whitelist, or one outside the binding. */
  readonly wrongPartner: number
  /** Refused: a value a rotation replaced, after its overlap ended. */
  readonly rotatedOut: number
  /**
   * `/v1/connect` per whitelisted partner (normalised name), most requests first;
   * refusals for a name off the whitelist are under `wrongPartner` only.
   */
  readonly partners: readonly { readonly partner: string; readonly succeeded: number; readonly wrongPartner: number }[]
}

/**
 * A passcode's usage over time (SPEC §5.41), as of the last usage flush of each
 * instance: the days with at least one counted request, oldest first, within the
 * kept days (`usage.retentionDays`).
 *
 * @example
 * ```ts
 * const usage = await auth.userPasscodes.usage(actor, 'acc_1', 'user_7')
 * console.log(usage.from, usage.days.length)
 * ```
 */
export interface PasscodeUsage {
  /** The first day kept, `YYYY-MM-DD`. */
  readonly from: string
  /** Today (UTC), `YYYY-MM-DD`. */
  readonly to: string
  /** Days with requests, oldest first. */
  readonly days: readonly UsageDay[]
}

type PartnerLine = { partner: string; succeeded: number; wrongPartner: number }
type MutableDay = { -readonly [K in Exclude<keyof UsageDay, 'partners'>]: UsageDay[K] } & { partners: PartnerLine[] }

const FIELD = {
  succeeded: 'succeeded',
  expired: 'expired',
  disabled: 'disabled',
  revoked: 'revoked',
  wrong_partner: 'wrongPartner',
  rotated_out: 'rotatedOut',
} as const

/** Folds stored rows (day, partner, outcome, n) into days. */
export function usageDays(rows: readonly StoredUsageCount[]): UsageDay[] {
  const days = new Map<string, MutableDay>()
  for (const { day, partner, outcome, n } of rows) {
    let entry = days.get(day)
    if (entry === undefined) {
      entry = { date: day, succeeded: 0, expired: 0, disabled: 0, revoked: 0, wrongPartner: 0, rotatedOut: 0, partners: [] }
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

/** Reads one credential's kept days from the store (none when it keeps no usage history). */
export async function readUsage(context: ServiceContext, kind: 'account' | 'user', accountId: string, key: string): Promise<PasscodeUsage> {
  const retentionDays = context.options.usage === false ? 90 : context.options.usage.retentionDays
  const today = dayOf(context.now())
  const from = dayText(today - retentionDays + 1)
  const { store } = context
  const rows = store.listUsageCounts === undefined ? [] : await storeCall(() => store.listUsageCounts!({ kind, accountId, key, from }))
  return { from, to: dayText(today), days: usageDays(rows) }
}
