// Usage over time in the dashboard (SPEC §5.41): "Unused for N days" in the list, and
// per passcode a chart of its last 30 days. The chart is an inline SVG whose bars are
// sized by attributes (the CSP allows no inline style) and coloured by the style sheet;
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

/** The last {@link CHART_DAYS} days up to `to`, oldest first, each with its successes and refusals (zero when absent). */
function lastDays(usage: PasscodeUsage): { date: string; succeeded: number; refused: number; day: UsageDay | undefined }[] {
  const byDate = new Map(usage.days.map((day) => [day.date, day]))
  const end = Date.parse(`${usage.to}T00:00:00Z`)
  return Array.from({ length: CHART_DAYS }, (_, index) => {
    const date = new Date(end - (CHART_DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10)
    const day = byDate.get(date)
    const refused = day ? REFUSALS.reduce((sum, [key]) => sum + day[key], 0) : 0
    return { date, succeeded: day?.succeeded ?? 0, refused, day }
  })
}

const label = (date: string) => DAY_LABEL.format(new Date(`${date}T00:00:00Z`))

/** "Used 132 times in the last 30 days, most on 24 Nov (40). 3 refused: 2 expired, 1 wrong partner." */
export function usageSummary(usage: PasscodeUsage): string {
  const days = lastDays(usage)
  const used = days.reduce((sum, day) => sum + day.succeeded, 0)
  const refused = days.reduce((sum, day) => sum + day.refused, 0)
  let text = `Not used in the last ${CHART_DAYS} days.`
  if (used > 0) {
    const most = days.reduce((best, day) => (day.succeeded > best.succeeded ? day : best))
    text = `Used ${plural(used, 'time')} in the last ${CHART_DAYS} days, most on ${label(most.date)} (${most.succeeded}).`
  }
  if (refused > 0) {
    const kinds = REFUSALS.map(([key, name]) => [days.reduce((sum, day) => sum + (day.day?.[key] ?? 0), 0), name] as const)
      .filter(([count]) => count > 0)
      .map(([count, name]) => `${count} ${name}`)
    text += ` ${refused} refused: ${kinds.join(', ')}.`
  }
  return text
}

/**
 * The chart of one passcode's last 30 days: stacked bars (successes, then matched
 * refusals), the first and last day under them, the summary, and a visually hidden
 * table of the days with requests.
 */
export function usageChart(usage: PasscodeUsage): HTMLElement {
  const days = lastDays(usage)
  const top = Math.max(1, ...days.map((day) => day.succeeded + day.refused))
  const height = 40
  const bars = days.map((day, index) => {
    const x = index * 5
    const used = (day.succeeded / top) * height
    const refused = (day.refused / top) * height
    return svg(
      'g',
      {},
      svg('title', {}, `${label(day.date)}: ${day.succeeded} used, ${day.refused} refused`),
      // An empty day still shows as a line on the baseline, so the 30 days read as 30.
      svg('rect', { class: 'empty-day', x, y: height - 1, width: 4, height: 1 }),
      day.succeeded > 0 ? svg('rect', { class: 'used', x, y: height - used, width: 4, height: used }) : null,
      day.refused > 0 ? svg('rect', { class: 'refused', x, y: height - used - refused, width: 4, height: refused }) : null,
    )
  })
  const counted = days.filter((day) => day.succeeded + day.refused > 0)
  return h(
    'div',
    { class: 'usage-chart' },
    svg(
      'svg',
      { class: 'usage-bars', viewBox: `0 0 ${CHART_DAYS * 5 - 1} ${height}`, preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
      bars,
    ),
    h('div', { class: 'usage-axis' }, h('span', {}, label(days[0]!.date)), h('span', {}, label(days.at(-1)!.date))),
    days.some((day) => day.refused > 0)
      ? h('p', { class: 'usage-legend' }, h('span', { class: 'swatch used' }), 'Used ', h('span', { class: 'swatch refused' }), 'Refused')
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
              ['Day (UTC)', 'Used', 'Refused'].map((text) => h('th', { scope: 'col' }, text)),
            ),
          ),
          h(
            'tbody',
            {},
            counted.map((day) => h('tr', {}, h('td', {}, label(day.date)), h('td', {}, String(day.succeeded)), h('td', {}, String(day.refused)))),
          ),
        )
      : null,
  )
}
