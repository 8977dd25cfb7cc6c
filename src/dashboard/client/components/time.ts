// The one way the dashboard shows a time (SPEC §5.43): local first, then how far away
// it is, "Jan 3, 2026, 2:00 AM (in 24 hours)", with the UTC time on hover and in
// `<time datetime>`. The same words in a table cell, a sentence ("works until …") and
// the leak banner; in a cell the style sheet puts the relative part on a line of its own.
import { h } from '../dom'
import { localTime, relativeTime, utcTime } from '../format'

/**
 * A `<time>` for an instant (an ISO 8601 text, or epoch milliseconds); nothing for none.
 *
 * @example
 * ```ts
 * cell('Expires', passcode.expiresAt ? time(passcode.expiresAt) : 'Never')
 * ```
 */
export function time(at: string | number | null | undefined): HTMLTimeElement | null {
  if (at === null || at === undefined || at === '') return null
  const ms = typeof at === 'number' ? at : Date.parse(at)
  const iso = new Date(ms).toISOString()
  return h('time', { datetime: iso, title: utcTime(iso) }, localTime(ms), ' ', h('span', { class: 'relative' }, `(${relativeTime(ms)})`))
}
