// The mark of a passcode made before the account's policy that breaks it (SPEC §5.52):
// it keeps working; the row says which rules it breaks.
import { h } from '../dom'

const RULE_WORDS: Readonly<Record<string, string>> = {
  maxLifetimeDays: 'lives longer than the maximum',
  requireExpiry: 'never expires',
  requireDescription: 'has no description',
}

/** "Breaks policy" and the rules, or nothing for a passcode that follows the policy. */
export function policyMark(violations: readonly string[]): HTMLElement | null {
  if (violations.length === 0) return null
  return h(
    'span',
    { class: 'policy-mark' },
    h('span', { class: 'badge expiring_soon' }, 'Breaks policy'),
    h('span', { class: 'leak-where' }, `It ${violations.map((rule) => RULE_WORDS[rule] ?? rule).join(', ')}; it keeps working.`),
  )
}
