// A rate limit and credits (SPEC §5.50): at most so many requests per window, and a
// balance of credits, one spent per admitted request, optionally set back to an amount
// at the start of each UTC day, week or month. Empty means none. Numbers go to the API
// as typed (a whole number, or the text), so its refusal names the field and the rule.
import { MAX_CREDITS, RATE_LIMIT_BOUNDS, REFILL_INTERVALS, type RefillInterval } from '../../../core/limits'
import { $, h } from '../dom'

/** A passcode's limits as the API shows them (the part the form edits). */
export interface LimitsShown {
  readonly rateLimit: { readonly max: number; readonly windowSeconds: number } | null
  readonly credits: { readonly remaining: number; readonly refill: { readonly amount: number; readonly interval: RefillInterval } | null } | null
}

const INTERVAL_WORDS: Readonly<Record<RefillInterval, string>> = { day: 'Daily', week: 'Weekly (Mondays)', month: 'Monthly (the 1st)' }

function numberField(id: string, label: string, field: string, value: number | undefined, max: number, min = 0): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', {
      id,
      name: field,
      type: 'number',
      min,
      max,
      step: 1,
      inputmode: 'numeric',
      value: value === undefined ? '' : String(value),
      'data-field': field,
    }),
  )
}

/** The Rate limit fieldset: requests per window of seconds; both empty for none. */
export function rateLimitFieldset(id: string, current: LimitsShown['rateLimit'] = null): HTMLFieldSetElement {
  const { max, windowSeconds } = RATE_LIMIT_BOUNDS
  return h(
    'fieldset',
    { class: 'limit-field' },
    h('legend', {}, 'Rate limit: requests per window (empty: none)'),
    numberField(`${id}-rate-max`, 'Requests', 'rateLimit.max', current?.max, max.max, max.min),
    numberField(`${id}-rate-window`, 'Window (seconds)', 'rateLimit.windowSeconds', current?.windowSeconds, windowSeconds.max, windowSeconds.min),
  )
}

/** The Credits fieldset: the balance, and an optional refill (interval, amount); an empty balance for none. */
export function creditsFieldset(id: string, current: LimitsShown['credits'] = null): HTMLFieldSetElement {
  const refill = current?.refill ?? null
  const interval = h(
    'select',
    { id: `${id}-refill-interval`, name: 'credits.refill.interval', 'data-field': 'credits.refill.interval' },
    h('option', { value: '', selected: refill === null }, 'Never'),
    REFILL_INTERVALS.map((value) => h('option', { value, selected: refill?.interval === value }, INTERVAL_WORDS[value])),
  )
  return h(
    'fieldset',
    { class: 'limit-field' },
    h('legend', {}, 'Credits: one per request, refilled at 00:00 UTC (empty: unlimited)'),
    numberField(`${id}-credits`, 'Remaining', 'credits.remaining', current?.remaining, MAX_CREDITS),
    h('div', { class: 'field' }, h('label', { for: `${id}-refill-interval` }, 'Refill'), interval),
    numberField(`${id}-refill-amount`, 'Refill to', 'credits.refill.amount', refill?.amount, MAX_CREDITS),
  )
}

/** A number as the API takes it: a whole number, or the text typed (which the API refuses by name). */
function typed(form: HTMLElement, name: string): number | string {
  const text = $(form, `input[name="${name}"]`).value.trim()
  return /^\d+$/.test(text) ? Number(text) : text
}

/** The rate limit a form says: null when both inputs are empty. */
export function readRateLimit(form: HTMLElement): { max: number | string; windowSeconds: number | string } | null {
  const max = typed(form, 'rateLimit.max')
  const windowSeconds = typed(form, 'rateLimit.windowSeconds')
  return max === '' && windowSeconds === '' ? null : { max, windowSeconds }
}

/** The credits a form says: null when the balance is empty and no refill is chosen. */
export function readCredits(form: HTMLElement): { remaining: number | string; refill: { amount: number | string; interval: string } | null } | null {
  const remaining = typed(form, 'credits.remaining')
  const interval = $<HTMLSelectElement>(form, 'select[name="credits.refill.interval"]').value
  const amount = typed(form, 'credits.refill.amount')
  if (remaining === '' && interval === '' && amount === '') return null
  // An amount without an interval is sent as a refill with none, which the API refuses at the interval.
  return { remaining, refill: interval === '' && amount === '' ? null : { amount, interval } }
}
