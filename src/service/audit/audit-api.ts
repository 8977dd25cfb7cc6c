import { canonicalJson, matchesAuditFilter, type AuditRecord, type AuditRecordFilter } from '../../core/audit'
import { auditChainCheck, verifyAuditChain, type AuditChainPoint, type AuditVerification } from '../../core/audit-chain'
import type { AuditKeyring } from '../../core/audit-keys'
import { vouchAuditPage } from '../../core/audit-page'
import type { Actor } from '../../core/entities'
import { AuditChainBrokenError, ConfigurationError, ForbiddenError, InvalidInputError } from '../../core/errors'
import { canManageUserPasscodes } from '../../core/rules'
import { DAY_MS } from '../../core/time'
import type { AuditLog } from '../../ports/audit-log'
import type { PasscodeStore } from '../../ports/passcode-store'
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
 * The audit trail (SPEC §5.40, §5.44): `auth.audit`.
 *
 * @example
 * ```ts
 * const { records, cursor } = await auth.audit.list(admin, 'acc_1', { action: 'passcode.rotated' })
 * const check = await auth.audit.verify('acc_1', { anchor: { sequence: 17, hash: keptHash } })
 * ```
 */
export interface AuditApi {
  /**
   * One page of the account's audit records, newest first (admins only; others get a
   * `ForbiddenError`), filtered by action, target, actor and time. Records hold no passcode
   * value, hash or key. Shows only records inside the chain's ends, and only when it can
   * vouch for each (core/audit-page.ts): otherwise it throws an `AuditChainBrokenError`
   * (`ERR_AUDIT_BROKEN`) that names the first record concerned.
   */
  list(actor: Actor, accountId: string, options?: AuditListOptions): Promise<AuditPage>
  /**
   * Every matching record, oldest first, as JSON lines (one canonical JSON object and
   * `\n` each, with `time` in ISO 8601 beside the epoch-ms `at`), for a SIEM or an
   * archive. Admins only. Reads pages of 1000 as it is iterated and verifies the whole
   * chain as it goes: at the first break it throws an `AuditChainBrokenError`, after the
   * lines of the records before it.
   */
  export(actor: Actor, accountId: string, filters?: AuditFilters): AsyncIterable<string>
  /**
   * Reads every row of the account and answers `{ ok: true, records, unkeyed, head }` or
   * `{ ok: false, at, reason }` naming the first break (`AuditBreak`). With `anchor` (a
   * `head` kept elsewhere from an earlier answer) it also sees a cut-off tail, a changed
   * record at that sequence, and a start moved past it without a prune record. An
   * operator's call: it takes no actor.
   */
  verify(accountId: string, options?: { readonly anchor?: AuditChainPoint }): Promise<AuditVerification>
  /**
   * Deletes records older than `keepDays` days in every account and appends an
   * `audit.pruned` record to each chain it shortened, keeping each chain verifiable from
   * its oldest kept record.
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

function query(filters: AuditFilters): AuditRecordFilter {
  return {
    ...(filters.action !== undefined && { actions: typeof filters.action === 'string' ? [filters.action] : filters.action }),
    ...(filters.target !== undefined && { targetId: filters.target }),
    ...(filters.actor !== undefined && { actorUserId: filters.actor }),
    ...(filters.from !== undefined && { from: filters.from.getTime() }),
    ...(filters.to !== undefined && { to: filters.to.getTime() }),
  }
}

/** An anchor as `verify` takes it: `head` of an earlier answer, `{ sequence, hash }`. */
function parseAnchor(anchor: unknown): AuditChainPoint | undefined {
  if (anchor === undefined) return undefined
  const { sequence, hash } = (typeof anchor === 'object' && anchor !== null ? anchor : {}) as Record<string, unknown>
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 0) {
    throw new InvalidInputError('anchor.sequence', 'must be the sequence of a head an earlier verification returned: a whole number, 0 or more')
  }
  if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
    throw new InvalidInputError('anchor.hash', 'must be the hash of a head an earlier verification returned: 64 lowercase hex characters')
  }
  return { sequence, hash }
}

/**
 * Every row of the account, oldest first, a page at a time (SPEC §5.44: rows below the
 * start and past the head too). Pages continue from the last sequence read, inclusive,
 * past the rows of that sequence already read: a sequence repeated (a dropped primary
 * key) comes through twice, for the chain check to name.
 */
async function* everyRow(log: AuditLog, accountId: string): AsyncGenerator<AuditRecord> {
  let from: number | undefined
  let seen = 0
  for (;;) {
    const page = await storeCall(() => log.records(accountId, { ...(from !== undefined && { from }), limit: WALK_PAGE }))
    yield* page.slice(seen)
    if (page.length < WALK_PAGE) return
    const last = page[page.length - 1]!.sequence
    seen = page.filter((record) => record.sequence === last).length
    if (seen === page.length) return
    from = last
  }
}

/**
 * Whether the store keeps anything of the account that only an audited write makes (SPEC
 * §5.44): an account passcode, a user passcode (revoked ones stay), an accepted-passcodes
 * setting other than the default, a policy, a webhook endpoint. Every write appends a
 * record, so such an account has a chain: without a head row or a row, it was lost. One
 * read of each, together, through the store's own reads; asked only for an account with
 * neither.
 */
async function keepsWrites(store: PasscodeStore, accountId: string): Promise<boolean> {
  const [passcodes, users, accepted, policy, endpoints] = await Promise.all([
    store.listAccountPasscodes(accountId),
    store.listUserPasscodes(accountId),
    store.getAcceptedPasscodes(accountId),
    store.getAccountPolicy?.(accountId) ?? null,
    store.webhooks?.listEndpoints(accountId) ?? [],
  ])
  return passcodes.length > 0 || users.length > 0 || accepted !== 'account' || policy !== null || endpoints.length > 0
}

/** What `auth.audit` receives from the service: the store (its `audit` log), the clock and the audit keys. */
export type AuditContext = Pick<ManagementContext, 'store' | 'now'> & {
  /** The `auditKeys` option: the first signs prune records, every one verifies. */
  readonly keys: AuditKeyring
}

/** Builds `auth.audit` over the store's audit log. */
export function createAuditApi(context: AuditContext): AuditApi {
  const { keys } = context
  const auditLog = (): AuditLog => {
    const log = context.store.audit
    if (log === undefined) throw new ConfigurationError('The passcode store keeps no audit trail (no `audit`)')
    return log
  }
  const adminOnly = (actor: unknown): void => {
    if (!canManageUserPasscodes(parseInput('actor', 'actor', actor))) throw new ForbiddenError('Only admins read the audit trail')
  }
  const chainOptions = (log: AuditLog, accountId: string) => ({
    keys,
    reread: () => storeCall(() => log.ends(accountId)),
    written: () => storeCall(() => keepsWrites(context.store, accountId)),
  })

  return {
    async list(actor, accountId, options) {
      adminOnly(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { cursor, limit = AUDIT_PAGE_SIZE, ...filters } = parseListOptions(options)
      const log = auditLog()
      const after = cursor === undefined ? undefined : decodeCursor(cursor)
      // One more than asked tells whether there is a next page.
      const filter = query(filters)
      const listing = await storeCall(() => log.list(account, { ...filter, limit: limit + 1, ...(after !== undefined && { after }) }))
      // A page read without a filter holds every sequence it spans: a gap in it is a removal.
      const unfiltered = Object.keys(filter).length === 0
      const failure = vouchAuditPage(listing, keys, unfiltered ? { after, limit: limit + 1 } : undefined)
      if (failure !== undefined) throw new AuditChainBrokenError(failure)
      const page = listing.records.slice(0, limit)
      return { records: page, cursor: listing.records.length > limit ? encodeCursor(page[page.length - 1]!.sequence) : null }
    },

    export(actor, accountId, filters) {
      adminOnly(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { cursor: _cursor, limit: _limit, ...checked } = parseListOptions(filters)
      const log = auditLog()
      const filter = query(checked)
      return {
        async *[Symbol.asyncIterator]() {
          const ends = await storeCall(() => log.ends(account))
          const check = auditChainCheck({ ends, ...chainOptions(log, account) })
          for await (const record of everyRow(log, account)) {
            const failure = await check.add(record)
            if (failure !== undefined) throw new AuditChainBrokenError(failure)
            if (matchesAuditFilter(record, filter)) yield `${canonicalJson({ ...record, time: new Date(record.at).toISOString() })}\n`
          }
          const result = await check.finish()
          if (!result.ok) throw new AuditChainBrokenError(result)
        },
      }
    },

    async verify(accountId, options) {
      const account = parseInput('accountId', 'accountId', accountId)
      const anchor = parseAnchor(options?.anchor)
      const log = auditLog()
      const ends = await storeCall(() => log.ends(account))
      return verifyAuditChain(everyRow(log, account), { ends, anchor, ...chainOptions(log, account) })
    },

    async prune(options) {
      const keepDays = options?.keepDays ?? DEFAULT_AUDIT_KEEP_DAYS
      if (!Number.isInteger(keepDays) || keepDays < 1) throw new InvalidInputError('keepDays', 'must be a whole number of days, at least 1')
      const now = context.now()
      const before = now - keepDays * DAY_MS
      const log = auditLog()
      const removed = await storeCall(() => log.prune(before, { at: now, signer: keys.signer }))
      return { removed, before: new Date(before) }
    },
  }
}
