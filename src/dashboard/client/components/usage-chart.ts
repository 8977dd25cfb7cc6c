// Usage over time in the dashboard (SPEC §5.41): "Unused for N days" in the list, and
// per passcode a chart of its last 30 days, its 429s (SPEC §5.50) a series of their own.
// The chart is an inline SVG whose bars are sized by attributes (the CSP allows no
// inline style) and coloured by the style sheet;
// it is hidden from assistive technology, which reads the summary under it and a
// visually hidden table of the days instead.
import { h, svg } from '../dom'
import { plural } from '../format'
import type { PasscodeUsage, UsageDay } from '../wire'

export type { PasscodeUsage, UsageDay } from '../wire'

const DAY_MS = 86_400_000
/** How many days the chart shows, ending today (UTC). */
export const CHART_DAYS = 30
const REFUSALS = [
  ['expired', 'expired'],
  ['disabled', 'disabled'],
  ['revoked', 'revoked'],
  ['wrongPartner', 'wrong partner'],
  ['rotatedOut', 'rotated out'],
  ['missingScope', 'missing scope'],
  ['address', 'address not allowed'],
] as const
/** The 429s (SPEC §5.50): a series of their own, as the rate limit and credits are not the credential's fault. */
const LIMITED = [
  ['rateLimited', 'over the rate limit'],
  ['creditsExhausted', 'out of credits'],
] as const
const DAY_LABEL = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' })

/**
 * What the list says of a passcode's last use, as people check it before deleting one:
 * "Never used", "Unused for 12 days" (rounded as its relative time, "12 days ago", is),
 * or nothing within the first day (its relative time says "3 hours ago").
 */
export function unusedFor(lastUsedAt: string | null, now: number = Date.now()): string {
  if (!lastUsedAt) return 'Never used'
  const elapsed = now - Date.parse(lastUsedAt)
  return elapsed >= DAY_MS ? `Unused for ${plural(Math.round(elapsed / DAY_MS), 'day')}` : ''
}

/** One day of the chart: its successes, its matched refusals (403s and the rest) and its 429s. */
interface ChartDay {
  readonly date: string
  readonly succeeded: number
  readonly refused: number
  readonly limited: number
  readonly day: UsageDay | undefined
}

/** The last {@link CHART_DAYS} days up to `to`, oldest first, each with its successes, refusals and 429s (zero when absent). */
function lastDays(usage: PasscodeUsage): ChartDay[] {
  const byDate = new Map(usage.days.map((day) => [day.date, day]))
  const end = Date.parse(`${usage.to}T00:00:00Z`)
  return Array.from({ length: CHART_DAYS }, (_, index) => {
    const date = new Date(end - (CHART_DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10)
    const day = byDate.get(date)
    const refused = day ? REFUSALS.reduce((sum, [key]) => sum + day[key], 0) : 0
    const limited = day ? LIMITED.reduce((sum, [key]) => sum + day[key], 0) : 0
    return { date, succeeded: day?.succeeded ?? 0, refused, limited, day }
  })
}

const label = (date: string) => DAY_LABEL.format(new Date(`${date}T00:00:00Z`))

/** "3 refused: 2 expired, 1 wrong partner.": the total of `kinds` over `days`, and each kind that has any. */
function counts(days: readonly ChartDay[], kinds: typeof REFUSALS | typeof LIMITED, total: number, what: string): string {
  if (total === 0) return ''
  const each = kinds
    .map(([key, name]) => [days.reduce((sum, day) => sum + (day.day?.[key] ?? 0), 0), name] as const)
    .filter(([count]) => count > 0)
    .map(([count, name]) => `${count} ${name}`)
  return ` ${total} ${what}: ${each.join(', ')}.`
}

/**
 * "Used 132 times in the last 30 days, most on 24 Nov (40). 3 refused: 2 expired, 1 wrong
 * partner. 5 limited (429): 3 over the rate limit, 2 out of credits."
 */
export function usageSummary(usage: PasscodeUsage): string {
  const days = lastDays(usage)
  const used = days.reduce((sum, day) => sum + day.succeeded, 0)
  let text = `Not used in the last ${CHART_DAYS} days.`
  if (used > 0) {
    const most = days.reduce((best, day) => (day.succeeded > best.succeeded ? day : best))
    text = `Used ${plural(used, 'time')} in the last ${CHART_DAYS} days, most on ${label(most.date)} (${most.succeeded}).`
  }
  text += counts(
    days,
    REFUSALS,
    days.reduce((sum, day) => sum + day.refused, 0),
    'refused',
  )
  text += counts(
    days,
    LIMITED,
    days.reduce((sum, day) => sum + day.limited, 0),
    'limited (429)',
  )
  return text
}

/**
 * The chart of one passcode's last 30 days: stacked bars (successes, then matched
 * refusals, then 429s), the first and last day under them, a legend, the summary, and a
 * visually hidden table of the days with requests (a 429 column when there are any).
 */
export function usageChart(usage: PasscodeUsage): HTMLElement {
  const days = lastDays(usage)
  const top = Math.max(1, ...days.map((day) => day.succeeded + day.refused + day.limited))
  const height = 40
  const bars = days.map((day, index) => {
    const x = index * 5
    const used = (day.succeeded / top) * height
    const refused = (day.refused / top) * height
    const limited = (day.limited / top) * height
    return svg(
      'g',
      {},
      svg('title', {}, `${label(day.date)}: ${day.succeeded} used, ${day.refused} refused${day.limited > 0 ? `, ${day.limited} limited (429)` : ''}`),
      // An empty day still shows as a line on the baseline, so the 30 days read as 30.
      svg('rect', { class: 'empty-day', x, y: height - 1, width: 4, height: 1 }),
      day.succeeded > 0 ? svg('rect', { class: 'used', x, y: height - used, width: 4, height: used }) : null,
      day.refused > 0 ? svg('rect', { class: 'refused', x, y: height - used - refused, width: 4, height: refused }) : null,
      day.limited > 0 ? svg('rect', { class: 'limited', x, y: height - used - refused - limited, width: 4, height: limited }) : null,
    )
  })
  const counted = days.filter((day) => day.succeeded + day.refused + day.limited > 0)
  const anyRefused = days.some((day) => day.refused > 0)
  const anyLimited = days.some((day) => day.limited > 0)
  const columns = ['Day (UTC)', 'Used', 'Refused', ...(anyLimited ? ['Limited (429)'] : [])]
  return h(
    'div',
    { class: 'usage-chart' },
    svg(
      'svg',
      { class: 'usage-bars', viewBox: `0 0 ${CHART_DAYS * 5 - 1} ${height}`, preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
      bars,
    ),
    h('div', { class: 'usage-axis' }, h('span', {}, label(days[0]!.date)), h('span', {}, label(days.at(-1)!.date))),
    anyRefused || anyLimited
      ? h(
          'p',
          { class: 'usage-legend' },
          h('span', { class: 'swatch used' }),
          'Used',
          anyRefused ? [' ', h('span', { class: 'swatch refused' }), 'Refused'] : null,
          anyLimited ? [' ', h('span', { class: 'swatch limited' }), 'Limited (429)'] : null,
        )
      : null,
    h('p', { class: 'usage-summary' }, usageSummary(usage)),
    counted.length > 0
      ? h(
          'table',
          { class: 'visually-hidden' },
          h('caption', {}, `Requests per day, last ${CHART_DAYS} days`),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              columns.map((text) => h('th', { scope: 'col' }, text)),
            ),
          ),
          h(
            'tbody',
            {},
            counted.map((day) =>
              h(
                'tr',
                {},
                [label(day.date), day.succeeded, day.refused, ...(anyLimited ? [day.limited] : [])].map((text) => h('td', {}, String(text))),
              ),
            ),
          ),
        )
      : null,
  )
}
