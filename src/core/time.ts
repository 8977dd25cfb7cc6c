/** Milliseconds in one day; SPEC §5.7 counts days as exactly this. */
export const DAY_MS = 86_400_000

/**
 * Lets the process exit while `timer` is pending. Node's and Bun's timers have `unref`;
 * Deno's, the browsers' and the edge runtimes' are numbers (the types say Node's), and
 * need nothing.
 */
export function unrefTimer(timer: number | { unref?: () => unknown } | undefined): void {
  if (typeof timer === 'object') timer.unref?.()
}

/**
 * Adds whole calendar years in UTC. A 29 February start lands on 28 February when the
 * target year has no leap day, so the result never spills into March.
 */
export function addUtcYears(fromMs: number, years: number): number {
  const from = new Date(fromMs)
  const year = from.getUTCFullYear() + years
  const month = from.getUTCMonth()
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const day = Math.min(from.getUTCDate(), lastDay)
  return Date.UTC(year, month, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds())
}

/** Accepts a `Date` or epoch milliseconds and returns epoch milliseconds. */
export function toMs(instant: Date | number): number {
  return typeof instant === 'number' ? instant : instant.getTime()
}
