import { z } from 'zod'
import {
  ACCOUNT_EXPIRY_DAYS,
  checkPasscodeDescription,
  checkPasscodeName,
  INVISIBLE_CHARACTER_CLASS,
  isPartnerNameLookable,
  MAX_BOUND_PARTNERS,
  MAX_DESCRIPTION_LENGTH,
  MAX_IDENTIFIER_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PARTNER_NAME_LENGTH,
} from '../core/rules'

// The input schemas of a passcode's own fields: identifiers, name, description, expiry,
// partners. The schemas of each operation (input.ts) are made of them.

// isVisibleAscii (core/rules.ts) in checks that JSON Schema can show: minLength, maxLength, pattern.
const IDENTIFIER_RULE = `must be 1 to ${MAX_IDENTIFIER_LENGTH} visible ASCII characters`
export const identifier = z
  .string({ error: 'must be a string' })
  .min(1, IDENTIFIER_RULE)
  .max(MAX_IDENTIFIER_LENGTH, IDENTIFIER_RULE)
  .regex(/^[\x21-\x7E]*$/, IDENTIFIER_RULE)

/**
 * JSON Schema keywords, for the OpenAPI document, of text that the server trims before
 * its rules: `maxLength` on the text as sent, and a `pattern` (ECMAScript, `u` flag) of
 * "blank surroundings, then text that starts and ends with a visible character and holds
 * no `refused` one, whitespace inside only where it is not refused" (`insideAlso`: more
 * characters allowed inside). The zod checks stay the rules; these describe them (test/docs
 * checks that they agree). Where they differ: the server counts once trimmed and in NFC,
 * so text padded past the limit passes the server but not the schema, and text that NFC
 * lengthens passes the schema but not the server; the descriptions say so.
 */
function trimmedText(maxLength: number, refused: string, { blank = false, insideAlso = '' } = {}) {
  const visible = `[^\\s${refused}]`
  const space = `(?:(?=\\s)[^${refused}]${insideAlso === '' ? '' : `|[${insideAlso}]`})`
  const text = `${visible}(?:${space}*${visible})*`
  return { maxLength, pattern: `^\\s*${blank ? `(?:${text})?` : text}\\s*$` }
}

const COUNTED_ONCE_TRIMMED = 'counted once trimmed and in NFC (send it trimmed: `maxLength` counts what is sent)'

export const name = z
  .string({ error: 'must be a string' })
  .transform((value, context) => {
    const checked = checkPasscodeName(value)
    if (checked.ok) return checked.name
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })
  .meta(trimmedText(MAX_NAME_LENGTH, INVISIBLE_CHARACTER_CLASS))
  .describe(
    `1 to ${MAX_NAME_LENGTH} characters, ${COUNTED_ONCE_TRIMMED}, no control or invisible character (zero-width, bidi controls, unpaired surrogates); unique in the account, case-insensitively (a rule of the account's state, not of this schema).`,
  )

/**
 * A description's rule (core/rules.ts, checkPasscodeDescription), for a passcode and a
 * webhook endpoint alike: `null` clears it, as `''` does. Each use says what it describes.
 */
export const descriptionText = z
  .string({ error: `must be text of at most ${MAX_DESCRIPTION_LENGTH} characters, or null` })
  .nullable()
  .transform((value, context) => {
    if (value === null) return ''
    const checked = checkPasscodeDescription(value)
    if (checked.ok) return checked.description
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })

export const description = descriptionText
  .meta(trimmedText(MAX_DESCRIPTION_LENGTH, String.raw`\p{Cc}\p{Cs}`, { blank: true, insideAlso: String.raw`\r\n` }))
  .describe(
    `What the passcode is for: 0 to ${MAX_DESCRIPTION_LENGTH} characters, ${COUNTED_ONCE_TRIMMED}; newlines allowed (\\r\\n is stored as \\n), no other control character, no unpaired surrogate; null or '' clears it.`,
  )

export const expiry = z
  .union(
    [
      z.literal('forever'),
      z
        .number()
        .int('must be a whole number of days')
        .min(ACCOUNT_EXPIRY_DAYS.min, `must be at least ${ACCOUNT_EXPIRY_DAYS.min} day`)
        .max(ACCOUNT_EXPIRY_DAYS.max, `must be at most ${ACCOUNT_EXPIRY_DAYS.max} days`),
    ],
    { error: `must be a whole number of days (${ACCOUNT_EXPIRY_DAYS.min} to ${ACCOUNT_EXPIRY_DAYS.max}) or "forever"` },
  )
  .describe('Whole days from now, or "forever".')

const partnerName = z
  .string({ error: 'must be a list of partner names' })
  .trim()
  .min(1, 'must not hold a blank partner name')
  .refine(isPartnerNameLookable, {
    message: `must hold partner names of at most ${MAX_PARTNER_NAME_LENGTH} characters without control characters`,
  })
  .meta(trimmedText(MAX_PARTNER_NAME_LENGTH, String.raw`\p{Cc}`))
  .describe(
    `A partner's name, compared trimmed and case-insensitively: at most ${MAX_PARTNER_NAME_LENGTH} characters once trimmed, no control characters. It must be on the operator's whitelist (\`GET /partners\`): a rule of the server's state, not of this schema.`,
  )

// null: unbound. An empty list would make a passcode that works for no partner.
export const partners = z
  .array(partnerName, { error: 'must be a list of whitelisted partner names, or null' })
  .min(1, 'must name at least one partner (null unbinds)')
  .max(MAX_BOUND_PARTNERS, `must name at most ${MAX_BOUND_PARTNERS} partners`)
  .nullable()
