import { z } from 'zod'
import { AUDIT_ACTIONS, AUDIT_PAGE_SIZE, MAX_AUDIT_PAGE_SIZE } from '../core/audit'

/*
 * The audit trail in the management API (SPEC §5.40): the query parameters of
 * `GET /audit` and `GET /audit/export`, and the page `GET /audit` answers with. As in
 * management-schemas.ts, a schema's input is what is on the wire and its output what the
 * service takes or returns; `npm run openapi` describes the same schemas.
 */

const TIME_RULE = 'must be an ISO 8601 time with its offset, such as 2026-01-31T00:00:00Z'
const instant = z.iso
  .datetime({ offset: true, error: TIME_RULE })
  .transform((text) => new Date(text))
  .pipe(z.date().refine((date) => !Number.isNaN(date.getTime()), TIME_RULE))

const LIMIT_RULE = `must be a whole number from 1 to ${MAX_AUDIT_PAGE_SIZE}`

/**
 * The filters of `GET /audit/export` as query parameters; `action` may be repeated
 * (`?action=passcode.rotated&action=passcode.deleted`), every other one given once.
 *
 * @example
 * ```ts
 * auditFilterQuerySchema.parse({ action: ['passcode.rotated'], from: '2026-01-01T00:00:00Z' })
 * ```
 */
export const auditFilterQuerySchema = z.strictObject({
  action: z
    .array(z.enum(AUDIT_ACTIONS, { error: `must be one of ${AUDIT_ACTIONS.join(', ')}` }))
    .min(1)
    .optional()
    .describe('Only these actions; repeat the parameter for more than one.'),
  target: z
    .string()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe('Only records about this passcode ID or user ID.'),
  actor: z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    .optional()
    .describe('Only what this user did (their user ID, in whichever role).'),
  from: instant.optional().describe('Only records at or after this time (ISO 8601 with offset).'),
  to: instant.optional().describe('Only records before this time (ISO 8601 with offset).'),
})

/**
 * The query parameters of `GET /audit`: the filters, the `cursor` of the page before and
 * the page size.
 *
 * @example
 * ```ts
 * parseQuery(auditListQuerySchema, 'limit=20') // { limit: 20 }
 * ```
 */
export const auditListQuerySchema = auditFilterQuerySchema.extend({
  cursor: z
    .string()
    .min(1, 'must not be empty')
    .max(100, 'is not a cursor of this list')
    .optional()
    .describe('The `nextCursor` of the previous page.'),
  // A number: parseQuery reads its decimal digits as one, so the document types it as an integer.
  limit: z
    .int({ error: LIMIT_RULE })
    .min(1, LIMIT_RULE)
    .max(MAX_AUDIT_PAGE_SIZE, LIMIT_RULE)
    .optional()
    .describe(`Records per page, 1 to ${MAX_AUDIT_PAGE_SIZE}; ${AUDIT_PAGE_SIZE} when absent.`),
})

/** A moment: an ISO 8601 UTC text on the wire, epoch milliseconds in a record. */
const epochTime = z.codec(z.iso.datetime(), z.int(), {
  decode: (text) => Date.parse(text),
  encode: (ms) => new Date(ms).toISOString(),
})

const auditValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())])

/**
 * One audit record as the management API shows it: never a passcode value, hash or key.
 *
 * @example
 * ```ts
 * auditRecordSchema.encode(record).at // '2026-01-05T09:00:00.000Z'
 * ```
 */
export const auditRecordSchema = z
  .object({
    sequence: z.int().min(1).describe("Its place in the account's chain, 1 for the first record."),
    at: epochTime.describe('When it happened.'),
    accountId: z.string(),
    actor: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('user'), userId: z.string(), role: z.enum(['admin', 'member']) }),
        z.object({ type: z.literal('system') }),
      ])
      .describe('Who: a user of the account in their role then, or the library itself (the notifier, a leak report).'),
    action: z.enum(AUDIT_ACTIONS),
    target: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('passcode'), id: z.string(), name: z.string().describe('Its name at the time.') }),
        z.object({ type: z.literal('user'), id: z.string().describe('The user whose passcode it is.') }),
        z.object({ type: z.literal('account') }),
        z.object({ type: z.literal('webhook'), id: z.string().describe('The webhook endpoint (SPEC §5.53).') }),
      ])
      .describe('To what: an account passcode, a user passcode, the account setting, or a webhook endpoint.'),
    changes: z
      .record(z.string(), z.object({ before: auditValue, after: auditValue }))
      .describe('The fields it changed, before and after (instants as epoch milliseconds); empty when none did.'),
    requestId: z.string().nullable().describe("The request's `X-Request-Id` when it came over HTTP with one."),
    clientAddress: z.string().nullable(),
    targetId: z.string().nullable().describe("The target's id as stored beside it for the per-target filter (null for the account)."),
    version: z.int().describe('The encoding its hash covers: 2 since audit keys exist (every field), 1 for records written before.'),
    keyId: z.string().nullable().describe('The id of the audit key whose HMAC `hash` is; null for a plain SHA-256.'),
    previousHash: z.string().describe('The hash of the record before it (the chain, not a passcode hash).'),
    hash: z
      .string()
      .describe('HMAC-SHA256 of its canonical encoding under the audit key `keyId` (SHA-256 without one): what `auth.audit.verify` checks.'),
  })
  .describe('An audit record (SPEC §5.40, §5.44).')

/**
 * One line of `GET /audit/export` (and of `auth.audit.export`): a record as the store
 * keeps it, with `at` in epoch milliseconds and `time`, the same instant in ISO 8601.
 * Objects are not strict, so fields the store adds to its records later are no surprise.
 *
 * @example
 * ```ts
 * auditExportLineSchema.parse(JSON.parse(line)).time // '2026-01-05T09:00:00.000Z'
 * ```
 */
export const auditExportLineSchema = auditRecordSchema
  .extend({
    at: z.int().min(0).describe('When it happened, in epoch milliseconds.'),
    time: z.iso.datetime().describe('The same instant in ISO 8601 (UTC).'),
  })
  .describe('An audit record as one line of a JSON-lines export (SPEC §5.40).')

/**
 * `GET /audit`: one page of the account's audit trail, newest first.
 *
 * @example
 * ```ts
 * auditPageSchema.encode({ records, nextCursor: null })
 * ```
 */
export const auditPageSchema = z.object({
  records: z.array(auditRecordSchema).describe('Newest first.'),
  nextCursor: z.string().nullable().describe('Pass it as `cursor` for the next (older) page; null on the last one.'),
})
