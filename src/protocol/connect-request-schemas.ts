import { z } from 'zod'
import { MAX_IDENTIFIER_LENGTH } from '../core/rules'

/*
 * What a request to GET /v1/connect sends (SPEC §4, §5.3, §5.4), as zod schemas for the
 * OpenAPI document (scripts/openapi.ts), so that a client generated from it has typed
 * credential headers and the document states each rule the server checks on the request
 * alone. The warm path does not parse with these: it checks the same rules without an
 * allocation (protocol/credentials.ts, core/rules.ts `isVisibleAscii`); test/docs/ checks
 * that every request it refuses with 400 for its form breaks these schemas.
 */

const VISIBLE_ASCII_RULE = `1 to ${MAX_IDENTIFIER_LENGTH} visible ASCII characters (0x21 to 0x7E), sent once`

/**
 * The value of `X-Service-Account-Id` or `X-Service-Passcode`: 1 to 256 visible ASCII
 * characters. Missing, empty, repeated, longer or with any other character, it is
 * answered as wrong credentials (400 "Invalid Credentials").
 *
 * @example
 * ```ts
 * credentialHeaderSchema.safeParse('acc_123').success // true
 * credentialHeaderSchema.safeParse('acc 123').success // false
 * ```
 */
export const credentialHeaderSchema = z
  .string()
  .min(1, VISIBLE_ASCII_RULE)
  .max(MAX_IDENTIFIER_LENGTH, VISIBLE_ASCII_RULE)
  .regex(/^[\x21-\x7E]+$/, VISIBLE_ASCII_RULE)

/**
 * The `partner` query parameter: a name with at least one character that is not
 * whitespace (a blank one is 400 "Missing partner" once the credentials are valid).
 * Whether it is whitelisted is the operator's list, not a rule of the request: a name
 * that is not, too long (over 128 characters) or with control characters is the 403.
 *
 * @example
 * ```ts
 * partnerParameterSchema.safeParse(' Acme ').success // true
 * partnerParameterSchema.safeParse('  ').success // false
 * ```
 */
export const partnerParameterSchema = z.string().regex(/\S/, 'must not be blank')
