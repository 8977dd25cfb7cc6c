// Words and numbers as people read them. Pure functions of their arguments (and the
// browser's locale and time zone): test/dashboard/format.test.ts runs them in Node.

const LOCAL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const RELATIVE_TIME = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
const DAY_MS = 86_400_000
const UNITS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ['year', 365 * DAY_MS],
  ['month', 30 * DAY_MS],
  ['day', DAY_MS],
  ['hour', 3_600_000],
  ['minute', 60_000],
]

/** "in 3 months", "5 minutes ago", "just now": the largest unit that fits at least once (days up to 60). */
export function relativeTime(ms: number, now: number = Date.now()): string {
  const diff = ms - now
  const size = Math.abs(diff)
  for (const [unit, length] of UNITS) {
    if (unit === 'month' && size < 60 * DAY_MS) continue
    if (size >= length) return RELATIVE_TIME.format(Math.round(diff / length), unit)
  }
  return 'just now'
}

/** "Jan 3, 2026, 2:00 AM": the date and time in the browser's time zone. */
export function localTime(ms: number): string {
  return LOCAL_TIME.format(new Date(ms))
}

/** "2026-01-03 02:00 UTC", from an ISO 8601 UTC text. */
export function utcTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/** "1 day", "3 days". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/** “Billing”: a name inside a sentence. */
export const quoted = (text: string): string => `“${text}”`

/** "account passcodes only" → "Account passcodes only". */
export const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

/** Sorts names as people expect: case-insensitive, "Service 9" before "Service 10". */
export const byName = (a: string, b: string): number => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })
