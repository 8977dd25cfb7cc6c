import { z } from 'zod'
import type { PasscodeMetadata } from '../core/entities'
import { printableName } from '../core/own-data'
import type { AccountPolicy } from '../core/policy'
import { POLICY_LIFETIME_DAYS } from '../core/policy'
import {
  checkMetadata,
  checkTag,
  MAX_ALLOWED_ADDRESSES,
  MAX_DECLARED_SCOPES,
  MAX_METADATA_BYTES,
  MAX_TAGS,
  MAX_TAG_LENGTH,
  SCOPE_NAME_PATTERN,
  TAG_RULE,
} from '../core/restrictions'
import { parseAddressRange } from './address-ranges'

// Restricted passcodes (SPEC §5.48, §5.49, §5.51, §5.52): their inputs' forms. Whether a
// scope is declared is a rule of the host's configuration, checked by the service.
const SCOPE_RULE = 'must be a scope name: a lower-case letter, then up to 63 of a-z 0-9 _ . : -'
export const scopes = z
  .array(z.string({ error: SCOPE_RULE }).regex(SCOPE_NAME_PATTERN, SCOPE_RULE), { error: 'must be a list of scope names, or null for every scope' })
  .max(MAX_DECLARED_SCOPES, `must name at most ${MAX_DECLARED_SCOPES} scopes`)
  .nullable()
  .transform((list) => (list === null ? null : [...new Set(list)].sort()))
  .describe(
    'The scopes it grants (SPEC §5.48): null (or absent at create) for every scope the host declares; a list for only those, each declared by the host (a rule of its configuration, not of this schema); [] for none.',
  )

const addressRange = z
  .string({ error: 'must be a CIDR range (text)' })
  .max(100, 'must be a CIDR range such as 203.0.113.0/24')
  .transform((text, context) => {
    const parsed = parseAddressRange(text)
    if (parsed.ok) return parsed.range
    context.addIssue({ code: 'custom', message: `"${printableName(text.trim())}" ${parsed.reason}` })
    return z.NEVER
  })
  .describe('A CIDR range, IPv4 (`203.0.113.0/24`) or IPv6 (`2001:db8::/32`), no host bits set; one address alone is its /32 or /128.')

export const allowedAddresses = z
  .array(addressRange, { error: 'must be a list of CIDR ranges' })
  .max(MAX_ALLOWED_ADDRESSES, `must hold at most ${MAX_ALLOWED_ADDRESSES} ranges`)
  .transform((list) => [...new Set(list)])
  .describe(
    `The addresses it may be used from (SPEC §5.49): at most ${MAX_ALLOWED_ADDRESSES} CIDR ranges; an IPv4-mapped or NAT64 caller matches its IPv4 range; [] for any address.`,
  )

export const metadata = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON object (not an array, null or a single value), or null to remove it' })
  .nullable()
  .transform((value, context): PasscodeMetadata | null => {
    if (value === null) return null
    const checked = checkMetadata(value)
    if (checked.ok) return checked.metadata
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })
  .describe(
    `The host's own data about the passcode (SPEC §5.51), returned on the principal: a JSON object of at most ${MAX_METADATA_BYTES} bytes as JSON; null removes it.`,
  )

export const tag = z
  .string({ error: 'must be a list of tags' })
  .transform((text, context) => {
    const checked = checkTag(text)
    if (checked.ok) return checked.tag
    context.addIssue({ code: 'custom', message: `"${printableName(text)}" ${checked.reason}` })
    return z.NEVER
  })
  .meta({ maxLength: MAX_TAG_LENGTH, pattern: String.raw`^\s*[\p{L}\p{N}][\p{L}\p{M}\p{N}_.:/@+-]*\s*$` })
  .describe(`A tag: ${TAG_RULE}.`)

export const tags = z
  .array(tag, { error: 'must be a list of tags' })
  .max(MAX_TAGS, `must hold at most ${MAX_TAGS} tags`)
  .transform((list) => [...new Set(list)])
  .describe(`Up to ${MAX_TAGS} tags (SPEC §5.51), to find and filter passcodes by; [] removes them.`)

export const policy = z
  .strictObject({
    maxLifetimeDays: z
      .int({ error: `must be a whole number of days (${POLICY_LIFETIME_DAYS.min} to ${POLICY_LIFETIME_DAYS.max}), or null for no maximum` })
      .min(POLICY_LIFETIME_DAYS.min, `must be at least ${POLICY_LIFETIME_DAYS.min} day`)
      .max(POLICY_LIFETIME_DAYS.max, `must be at most ${POLICY_LIFETIME_DAYS.max} days`)
      .nullable()
      .optional()
      .describe(`The longest a passcode may live, in days (${POLICY_LIFETIME_DAYS.min} to ${POLICY_LIFETIME_DAYS.max}); null or absent: no maximum.`),
    requireExpiry: z.boolean({ error: 'must be true or false' }).optional().describe('No account passcode without an expiry ("Forever" refused).'),
    requireDescription: z.boolean({ error: 'must be true or false' }).optional().describe('No account passcode without a description.'),
  })
  .transform((value): AccountPolicy => ({
    maxLifetimeDays: value.maxLifetimeDays ?? null,
    requireExpiry: value.requireExpiry ?? false,
    requireDescription: value.requireDescription ?? false,
  }))
  .describe("An account's policy (SPEC §5.52): it replaces the host's default whole; a rule left out is off.")
