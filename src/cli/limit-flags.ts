import type { OptionSpec } from './command'
import type { Flags } from './config'
import { CliError } from './exit-codes'

/*
 * The flags of a passcode's rate limit and credits (SPEC §5.50), beside the others of
 * `passcodes create`, `passcodes edit` and `users grant`: their form is read here, their
 * ranges are the service's rules (a validation error naming the field).
 */

/** The flags of create and grant. */
export const LIMIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'rate-limit': {
    type: 'string',
    value: '<max/seconds>',
    description: 'at most max requests per window of seconds, across every instance (1 to 1000000 per 1 to 86400 s), like 100/60',
  },
  credits: { type: 'string', value: '<n>', description: 'credits: one per admitted request, 429 when none is left (0 to 10^12)' },
  refill: {
    type: 'string',
    value: '<day|week|month:amount>',
    description: 'with --credits: set the balance to amount at the start of each UTC day, ISO week or month, like month:1000',
  },
}

/** The flags of edit: the same, and the two that remove them. */
export const LIMIT_EDIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...LIMIT_OPTIONS,
  'no-rate-limit': { type: 'boolean', description: 'remove its rate limit' },
  'no-credits': { type: 'boolean', description: 'remove its credits (no limit on the number of requests)' },
}

/** Credits as the service takes them at create, edit and grant. */
interface CreditsInput {
  readonly remaining: number
  readonly refill?: { readonly amount: number; readonly interval: 'day' | 'week' | 'month' }
}

const usage = (setting: string, rule: string): CliError => new CliError('ERR_USAGE', `Invalid ${setting}: ${rule}`, { setting })

const WHOLE = /^\d{1,13}$/

/**
 * The limits the flags ask for: `rateLimit` and `credits` when given, `null` for the ones
 * an edit removes, nothing for the ones not named. Throws a usage error for a form that
 * is not one (`--rate-limit 100`, `--credits 1.5`, `--refill year:5`, a refill without credits).
 *
 * @example
 * ```ts
 * limitFlags({ 'rate-limit': '100/60', credits: '1000', refill: 'month:1000' })
 * // { rateLimit: { max: 100, windowSeconds: 60 }, credits: { remaining: 1000, refill: { amount: 1000, interval: 'month' } } }
 * ```
 */
export function limitFlags(flags: Flags): { rateLimit?: { max: number; windowSeconds: number } | null; credits?: CreditsInput | null } {
  const out: { rateLimit?: { max: number; windowSeconds: number } | null; credits?: CreditsInput | null } = {}
  if (flags['rate-limit'] !== undefined && flags['no-rate-limit'] === true) {
    throw new CliError('ERR_USAGE', 'Give --rate-limit or --no-rate-limit, not both', { setting: '--rate-limit' })
  }
  if (flags.credits !== undefined && flags['no-credits'] === true) {
    throw new CliError('ERR_USAGE', 'Give --credits or --no-credits, not both', { setting: '--credits' })
  }
  if (flags['rate-limit'] !== undefined) {
    const match = /^(\d{1,7})\/(\d{1,5})s?$/.exec(String(flags['rate-limit']).trim())
    if (match === null) throw usage('--rate-limit', 'must be <max>/<seconds>, whole numbers, like 100/60')
    out.rateLimit = { max: Number(match[1]), windowSeconds: Number(match[2]) }
  }
  if (flags['no-rate-limit'] === true) out.rateLimit = null
  if (flags.refill !== undefined && flags.credits === undefined) {
    throw new CliError('ERR_USAGE', '--refill needs --credits (the balance from now on)', { setting: '--refill' })
  }
  if (flags.credits !== undefined) {
    const text = String(flags.credits).trim()
    if (!WHOLE.test(text)) throw usage('--credits', 'must be a whole number of credits (0 to 10^12)')
    let refill: CreditsInput['refill'] | undefined
    if (flags.refill !== undefined) {
      const match = /^(day|week|month):(\d{1,13})$/.exec(String(flags.refill).trim())
      if (match === null) throw usage('--refill', 'must be day, week or month, a colon and a whole amount, like month:1000')
      refill = { interval: match[1] as 'day' | 'week' | 'month', amount: Number(match[2]) }
    }
    out.credits = { remaining: Number(text), ...(refill !== undefined && { refill }) }
  }
  if (flags['no-credits'] === true) out.credits = null
  return out
}

/** Whether the flags name any limit (an edit with only these changes something). */
export function hasLimitFlags(flags: Flags): boolean {
  return Object.keys(LIMIT_EDIT_OPTIONS).some((name) => flags[name] !== undefined && flags[name] !== false)
}
