// What a restricted passcode may do, in its row (SPEC §5.48–5.51): the scopes it grants,
// the address ranges it may be used from, its rate limit and its credits (one Restrictions
// cell), and its tags as chips that filter the list. The words are pure functions (test/dashboard/restriction-cells.test.ts
// runs them in Node); the cells are built with the text-only element builder.
import { h, hidden, type Child } from '../dom'
import { plural, relativeTime, utcTime } from '../format'
import type { Passcode } from '../wire'

/** A rate limit as the API sends it. */
export type RateLimit = NonNullable<Passcode['rateLimit']>
/** Credits as the API sends them. */
export type Credits = NonNullable<Passcode['credits']>
/** The restriction fields account and user passcodes share. */
export type Restricted = Pick<Passcode, 'scopes' | 'unknownScopes' | 'allowedAddresses' | 'rateLimit' | 'credits'>

const NUMBER = new Intl.NumberFormat(undefined)
const HOUR = 3600
const INTERVALS: Readonly<Record<NonNullable<Credits['refill']>['interval'], string>> = { day: 'day', week: 'week', month: 'month' }

/** "60 s", "1 h", "24 h": a window in seconds, in hours when it is whole hours. */
export function windowText(seconds: number): string {
  return seconds >= HOUR && seconds % HOUR === 0 ? `${seconds / HOUR} h` : `${NUMBER.format(seconds)} s`
}

/** "100 / 60 s": at most `max` requests in each window. */
export function rateLimitText(limit: RateLimit): string {
  return `${NUMBER.format(limit.max)} / ${windowText(limit.windowSeconds)}`
}

/** "1,000 requests": a count of things with its grouping. */
const counted = (count: number, one: string): string => `${NUMBER.format(count)} ${count === 1 ? one : `${one}s`}`

/** "100 requests per 60 seconds", "1 request per hour": the same for a screen reader, which would read "/" as "slash". */
export function rateLimitWords(limit: RateLimit): string {
  const seconds = limit.windowSeconds
  const [length, unit] = seconds >= HOUR && seconds % HOUR === 0 ? [seconds / HOUR, 'hour'] : [seconds, 'second']
  return `${counted(limit.max, 'request')} per ${length === 1 ? unit : counted(length, unit)}`
}

/** "940 credits left", "1 credit left", "No credits left". */
export function creditsText(credits: Credits): string {
  return credits.remaining === 0 ? 'No credits left' : `${counted(credits.remaining, 'credit')} left`
}

/** "Refilled to 1,000 each month", or nothing without a refill. */
export function refillText(credits: Credits): string {
  return credits.refill ? `Refilled to ${NUMBER.format(credits.refill.amount)} each ${INTERVALS[credits.refill.interval]}` : ''
}

/** "All scopes", or the scopes it was given ("No scopes" for an empty list). */
export function scopesText(scopes: readonly string[] | null): string {
  if (scopes === null) return 'All scopes'
  return scopes.length === 0 ? 'No scopes' : scopes.join(', ')
}

/** "Any address", "1 address range", "3 address ranges". */
export function addressesText(ranges: readonly string[]): string {
  return ranges.length === 0 ? 'Any address' : plural(ranges.length, 'address range')
}

/** Whether the passcode grants every scope from any address: its access is one muted line. */
export const unrestricted = (passcode: Restricted): boolean => passcode.scopes === null && passcode.allowedAddresses.length === 0

/**
 * What the passcode may do: the scopes (a scope the host no longer declares marked, as it
 * grants nothing) and the address ranges, their count with the list on expand (and on
 * hover). Unrestricted, one muted line.
 */
export function accessContent(passcode: Restricted): Child {
  if (unrestricted(passcode)) return h('span', { class: 'muted' }, 'All scopes, any address')
  const unknown = new Set(passcode.unknownScopes)
  const scopes =
    passcode.scopes === null || passcode.scopes.length === 0
      ? h('span', { class: passcode.scopes === null ? 'muted' : '' }, scopesText(passcode.scopes))
      : passcode.scopes.map((scope, index) => [
          index > 0 ? ', ' : null,
          unknown.has(scope)
            ? h('span', { class: 'unknown-scope', title: 'The host no longer declares this scope: it grants nothing.' }, scope, ' (unknown)')
            : h('span', { class: 'scope' }, scope),
        ])
  const ranges = passcode.allowedAddresses
  const addresses =
    ranges.length === 0
      ? h('span', { class: 'muted' }, 'Any address')
      : h(
          'details',
          { class: 'ranges', title: ranges.join(', ') },
          h('summary', {}, addressesText(ranges)),
          h(
            'ul',
            {},
            ranges.map((range) => h('li', {}, h('code', {}, range))),
          ),
        )
  return h('div', { class: 'access' }, h('span', { class: 'scopes' }, scopes), addresses)
}

/** "in 3 weeks", the UTC time on hover: the next refill, short enough for a cell. */
function nextRefill(at: string): HTMLTimeElement {
  return h('time', { datetime: at, title: utcTime(at) }, relativeTime(Date.parse(at)))
}

/** Its limits: "100 / 60 s", "940 credits left" and its refill; nothing without either. */
export function limitsContent(passcode: Restricted): HTMLElement | null {
  const { rateLimit, credits } = passcode
  if (rateLimit === null && credits === null) return null
  return h(
    'div',
    { class: 'limits' },
    rateLimit
      ? h('span', { class: 'rate' }, h('span', { 'aria-hidden': 'true' }, rateLimitText(rateLimit)), hidden(rateLimitWords(rateLimit)))
      : null,
    credits
      ? h(
          'span',
          { class: credits.remaining === 0 ? 'credits out' : 'credits' },
          h('span', { class: 'left' }, creditsText(credits)),
          credits.refill
            ? h('span', { class: 'refill' }, refillText(credits), credits.nextRefillAt ? [' (next ', nextRefill(credits.nextRefillAt), ')'] : null)
            : null,
        )
      : null,
  )
}

/** Whether the passcode has no restriction at all: every scope, any address, no limit. */
const plain = (passcode: Restricted): boolean => unrestricted(passcode) && passcode.rateLimit === null && passcode.credits === null

/** What the passcode may do above its limits, or nothing for one without any restriction (on Users, under the hint). */
export function restrictions(passcode: Restricted): HTMLElement | null {
  return plain(passcode) ? null : h('div', { class: 'restricted' }, accessContent(passcode), limitsContent(passcode))
}

/**
 * The Restrictions cell of Passcodes: what the passcode may do above its limits. One
 * column for both keeps a row within 1280 px. A passcode with none says "All scopes, any
 * address" at desktop width; a phone's card, which lists only what restricts the
 * passcode, leaves that line out.
 */
export function restrictionsCell(passcode: Restricted): HTMLTableCellElement {
  return h(
    'td',
    { 'data-label': 'Restrictions', class: plain(passcode) ? 'plain' : null },
    restrictions(passcode) ?? h('div', { class: 'restricted' }, accessContent(passcode)),
  )
}

/** A passcode's tags as chips: each a button that shows only the passcodes with that tag (pressed while it does). */
export function tagChips(tags: readonly string[], selected: readonly string[], choose: (tag: string) => void): HTMLElement | null {
  if (tags.length === 0) return null
  return h(
    'ul',
    { class: 'tags', 'aria-label': 'Tags' },
    tags.map((tag) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'tag', 'aria-pressed': String(selected.includes(tag)), onclick: () => choose(tag) },
          hidden('Filter by tag '),
          tag,
        ),
      ),
    ),
  )
}
