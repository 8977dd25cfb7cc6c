import { canonicalJson, type AuditRecord } from '../../core/audit'
import { verifyAuditChain, type AuditVerification } from '../../core/audit-chain'
import type { Actor } from '../../core/entities'
import { ConfigurationError, ForbiddenError, InvalidInputError } from '../../core/errors'
import { canManageUserPasscodes } from '../../core/rules'
import { DAY_MS } from '../../core/time'
import type { AuditLog, AuditQuery } from '../../ports/audit-log'
import type { ManagementContext } from '../context'
import { storeCall } from '../deadline'
import { parseInput } from '../input'
import { AUDIT_PAGE_SIZE, auditListSchema, decodeCursor, encodeCursor, type AuditFilters, type AuditListOptions } from './audit-input'

/** Records read per round trip while verifying or exporting. */
const WALK_PAGE = 1000
/** How long records are kept unless `prune` is told otherwise (SPEC §5.40). */
export const DEFAULT_AUDIT_KEEP_DAYS = 400

/**
 * One page of `auth.audit.list`: records newest first, and the cursor of the next page
 * (`null` on the last one).
 *
 * @example
 * ```ts
 * const { records, cursor } = await auth.audit.list(admin, 'acc_1')
 * ```
 */
export interface AuditPage {
  /** The records, newest first. */
  readonly records: AuditRecord[]
  /** Pass it as `cursor` for the next page; `null` when there is none. */
  readonly cursor: string | null
}

/**
 * What `auth.audit.prune` removed.
 *
 * @example
 * ```ts
 * const { removed, before } = await auth.audit.prune({ keepDays: 400 })
 * ```
 */
export interface AuditPruneReport {
  /** How many records were deleted, in all accounts. */
  readonly removed: number
  /** The cut-off: records older than this went. */
  readonly before: Date
}

/**
 * The audit trail (SPEC §5.40): `auth.audit`.
 *
 * @example
 * ```ts
 * const { records, cursor } = await auth.audit.list(admin, 'acc_1', { action: 'passcode.rotated' })
 * const check = await auth.audit.verify('acc_1', { anchor: keptHash })
 * ```
 */
export interface AuditApi {
  /**
   * One page of the account's audit records, newest first (admins only; others get a
   * `ForbiddenError`), filtered by action, target, actor and time. Records hold no passcode
   * value, hash or key.
   */
  list(actor: Actor, accountId: string, options?: AuditListOptions): Promise<AuditPage>
  /**
   * Every matching record, oldest first, as JSON lines (one canonical JSON object and
   * `\n` each, with `time` in ISO 8601 beside the epoch-ms `at`), for a SIEM or an
   * archive. Admins only. Reads pages of 1000 as it is iterated.
   */
  export(actor: Actor, accountId: string, filters?: AuditFilters): AsyncIterable<string>
  /**
   * Walks the account's chain from the oldest kept record and answers `{ ok: true }`
   * or `{ ok: false, at, reason }` naming the first record changed, removed or
   * reordered. With `anchor` (a `head.hash` kept elsewhere from an earlier answer) it
   * also sees a cut-off tail. An operator's call: it takes no actor.
   */
  verify(accountId: string, options?: { readonly anchor?: string }): Promise<AuditVerification>
  /**
   * Deletes records older than `keepDays` days in every account, keeping each chain
   * verifiable from its oldest kept record.
   */
  prune(options?: { readonly keepDays?: number }): Promise<AuditPruneReport>
}

/** The options object's own properties, Dates and arrays kept, for the schema. */
function ownOptions(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  return Object.fromEntries(Object.keys(value).map((key) => [key, (value as Record<string, unknown>)[key]]))
}

function parseListOptions(value: unknown): AuditListOptions {
  const result = auditListSchema.safeParse(ownOptions(value))
  if (result.success) return result.data ?? {}
  const issue = result.error.issues[0]!
  const field = ['options', ...issue.path.map(String)].join('.')
  throw new InvalidInputError(
    field,
    issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message,
  )
}

function query(filters: AuditFilters): Omit<AuditQuery, 'order' | 'limit'> {
  return {
    ...(filters.action !== undefined && { actions: typeof filters.action === 'string' ? [filters.action] : filters.action }),
    ...(filters.target !== undefined && { targetId: filters.target }),
    ...(filters.actor !== undefined && { actorUserId: filters.actor }),
    ...(filters.from !== undefined && { from: filters.from.getTime() }),
    ...(filters.to !== undefined && { to: filters.to.getTime() }),
  }
}

/** Reads records oldest first, a page at a time, after `after`. */
async function* walk(log: AuditLog, accountId: string, base: Omit<AuditQuery, 'order' | 'limit'>, after: number): AsyncGenerator<AuditRecord> {
  for (;;) {
    const page = await storeCall(() => log.list(accountId, { ...base, order: 'oldest', after, limit: WALK_PAGE }))
    yield* page
    if (page.length < WALK_PAGE) return
    after = page[page.length - 1]!.sequence
  }
}

/** What `auth.audit` receives from the service: the store (its `audit` log) and the clock. */
export type AuditContext = Pick<ManagementContext, 'store' | 'now'>

/** Builds `auth.audit` over the store's audit log. */
export function createAuditApi(context: AuditContext): AuditApi {
  const auditLog = (): AuditLog => {
    const log = context.store.audit
    if (log === undefined) throw new ConfigurationError('The passcode store keeps no audit trail (no `audit`)')
    return log
  }
  const adminOnly = (actor: unknown): void => {
    if (!canManageUserPasscodes(parseInput('actor', 'actor', actor))) throw new ForbiddenError('Only admins read the audit trail')
  }

  return {
    async list(actor, accountId, options) {
      adminOnly(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { cursor, limit = AUDIT_PAGE_SIZE, ...filters } = parseListOptions(options)
      const log = auditLog()
      const after = cursor === undefined ? undefined : decodeCursor(cursor)
      // One more than asked tells whether there is a next page.
      const records = await storeCall(() =>
        log.list(account, { ...query(filters), order: 'newest', limit: limit + 1, ...(after !== undefined && { after }) }),
      )
      const page = records.slice(0, limit)
      return { records: page, cursor: records.length > limit ? encodeCursor(page[page.length - 1]!.sequence) : null }
    },

    export(actor, accountId, filters) {
      adminOnly(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { cursor: _cursor, limit: _limit, ...checked } = parseListOptions(filters)
      const log = auditLog()
      return {
        async *[Symbol.asyncIterator]() {
          for await (const record of walk(log, account, query(checked), 0)) {
            yield `${canonicalJson({ ...record, time: new Date(record.at).toISOString() })}\n`
          }
        },
      }
    },

    async verify(accountId, options) {
      const account = parseInput('accountId', 'accountId', accountId)
      const anchor = options?.anchor
      if (anchor !== undefined && (typeof anchor !== 'string' || !/^[0-9a-f]{64}$/.test(anchor))) {
        throw new InvalidInputError('anchor', 'must be a record hash: 64 lowercase hex characters')
      }
      const log = auditLog()
      const { start, head } = await storeCall(() => log.ends(account))
      return verifyAuditChain(walk(log, account, {}, start.sequence), { start, head, anchor })
    },

    async prune(options) {
      const keepDays = options?.keepDays ?? DEFAULT_AUDIT_KEEP_DAYS
      if (!Number.isInteger(keepDays) || keepDays < 1) throw new InvalidInputError('keepDays', 'must be a whole number of days, at least 1')
      const before = context.now() - keepDays * DAY_MS
      const log = auditLog()
      const removed = await storeCall(() => log.prune(before))
      return { removed, before: new Date(before) }
    },
  }
}
