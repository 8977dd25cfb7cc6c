import { createPasscodeHasher } from './hashing'

/**
 * Every action the audit trail records (SPEC §5.40). A new management action is one
 * more line here; the stores keep the name as text, so nothing else changes.
 *
 * @example
 * ```ts
 * import { AUDIT_ACTIONS, type AuditAction } from 'passcode-auth'
 *
 * const isAuditAction = (text: string): text is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(text)
 * ```
 */
export const AUDIT_ACTIONS = [
  'passcode.created',
  'passcode.updated',
  'passcode.partners_changed',
  'passcode.rotated',
  'passcode.disabled',
  'passcode.enabled',
  'passcode.deleted',
  // For the leak reports of SPEC §5.42, which nothing writes yet.
  'passcode.leak_reported',
  'user_passcode.granted',
  'user_passcode.reset',
  'user_passcode.revoked',
  'user_passcode.revealed',
  'account.accepted_passcodes_changed',
  // SPEC §5.52
  'account.policy_changed',
  'notification.sent',
  'notification.failed',
  'webhook.endpoint_created',
  'webhook.endpoint_updated',
  'webhook.endpoint_deleted',
  'webhook.secret_rotated',
  'webhook.endpoint_disabled',
  // SPEC §5.44: a prune, in the chain it shortened (how many, up to which sequence, the last one's hash).
  'audit.pruned',
] as const

/**
 * What an audit record says happened (SPEC §5.40), one of {@link AUDIT_ACTIONS}.
 *
 * @example
 * ```ts
 * const action: AuditAction = 'passcode.rotated'
 * ```
 */
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** The page size of `auth.audit.list` (and `GET /audit`) unless `limit` says otherwise. */
export const AUDIT_PAGE_SIZE = 50
/** The largest page `auth.audit.list` (and `GET /audit`) returns. */
export const MAX_AUDIT_PAGE_SIZE = 200

/**
 * Who did it: a user of the account in a role, or the library itself (the notifier).
 *
 * @example
 * ```ts
 * const actor: AuditActor = { type: 'user', userId: 'u_42', role: 'admin' }
 * ```
 */
export type AuditActor =
  | {
      /** A person acting through the service API, the management API or the dashboard. */
      readonly type: 'user'
      /** Their user ID. */
      readonly userId: string
      /** Their role in the account at the time. */
      readonly role: 'admin' | 'member'
    }
  | {
      /** The library on its own (the expiry notifier). */
      readonly type: 'system'
    }

/**
 * What the action was done to: an account passcode (by id, with its name at the time),
 * a user's passcode (by user ID), or the account itself (its settings).
 *
 * @example
 * ```ts
 * const target: AuditTarget = { type: 'passcode', id: '5f0c…', name: 'Acme sync' }
 * ```
 */
export type AuditTarget =
  | {
      /** An account passcode. */
      readonly type: 'passcode'
      /** Its ID. */
      readonly id: string
      /** Its name when the action happened. */
      readonly name: string
    }
  | {
      /** A user passcode. */
      readonly type: 'user'
      /** The user it belongs to. */
      readonly id: string
    }
  | {
      /** The account's settings. */
      readonly type: 'account'
    }
  | {
      /** A webhook endpoint of the account (SPEC §5.53). */
      readonly type: 'webhook'
      /** Its ID. */
      readonly id: string
    }

/**
 * A field's value before or after an action: never a passcode value, hash, ciphertext or key.
 *
 * @example
 * ```ts
 * const partners: AuditValue = ['acme', 'globex']
 * ```
 */
export type AuditValue = string | number | boolean | null | readonly string[]

/**
 * Fields the action changed, each with its value before and after (`null` when it did
 * not exist). Instants are epoch milliseconds.
 *
 * @example
 * ```ts
 * const changes: AuditChanges = { name: { before: 'Acme', after: 'Acme sync' } }
 * ```
 */
export type AuditChanges = Readonly<
  Record<
    string,
    {
      /** The field's value before the action; `null` when it had none. */
      readonly before: AuditValue
      /** The field's value after it; `null` when it has none. */
      readonly after: AuditValue
    }
  >
>

/**
 * A record as the service hands it to the store, before the store places it in the
 * account's chain.
 *
 * @example
 * ```ts
 * const entry: AuditEntry = {
 *   accountId: 'acc_1', at: Date.now(), action: 'passcode.deleted',
 *   actor: { type: 'user', userId: 'u_42', role: 'admin' },
 *   target: { type: 'passcode', id: '5f0c…', name: 'Acme sync' },
 *   changes: {}, requestId: null, clientAddress: null,
 * }
 * ```
 */
export interface AuditEntry {
  /** The account whose chain the record joins. */
  readonly accountId: string
  /** When, epoch milliseconds from the service's clock. */
  readonly at: number
  /** Who. */
  readonly actor: AuditActor
  /** What. */
  readonly action: AuditAction
  /** To what. */
  readonly target: AuditTarget
  /** Which fields changed, before and after; `{}` when none did (a reveal, a send). */
  readonly changes: AuditChanges
  /** The request's ID when the action came over HTTP and it was known, else `null`. */
  readonly requestId: string | null
  /** The client's address when known, else `null`. */
  readonly clientAddress: string | null
}

/**
 * A stored audit record: the entry, its place in the account's chain (`sequence`
 * counts from 1), the encoding its hash covers, the key that made it, the target's id
 * as stored for the per-target filter, the hash of the record before it and its own
 * hash (SPEC §5.44).
 *
 * @example
 * ```ts
 * const keyed = record.keyId !== null // an HMAC under that audit key, not a plain SHA-256
 * ```
 */
export interface AuditRecord extends AuditEntry {
  /** Its position in the account's chain, 1 for the first record ever. */
  readonly sequence: number
  /**
   * The encoding its hash covers: 2 for every record written since audit keys exist
   * (every stored field); 1 for a record written before (schema version 12), which
   * stays verifiable as it was.
   */
  readonly version: number
  /** The id of the audit key whose HMAC `hash` is; `null` for a plain SHA-256 (no key configured, or version 1). */
  readonly keyId: string | null
  /** The target's id as stored beside it, for the per-target filter: the passcode's or user's id, `null` for the account. */
  readonly targetId: string | null
  /** The hash of the record before it; `GENESIS_HASH` (64 zeros) for the first one. */
  readonly previousHash: string
  /** HMAC-SHA256 under the audit key `keyId` (or SHA-256 without one), lowercase hex, of its canonical encoding. */
  readonly hash: string
}

/** The `previousHash` of an account's first record: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64)

/** The version of the canonical encoding new records are written in (see {@link auditRecordInput}). */
export const AUDIT_ENCODING_VERSION = 2

/**
 * The canonical JSON of a value: object keys sorted by UTF-16 code units, no
 * whitespace, strings escaped as `JSON.stringify` does, numbers only as safe integers.
 * Two implementations that follow this produce the same bytes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError('An audit record holds whole numbers only')
    return String(value)
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort()
    const object = value as Record<string, unknown>
    return `{${keys
      .filter((key) => object[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
      .join(',')}}`
  }
  throw new TypeError(`An audit record cannot hold a ${typeof value}`)
}

/** The target's id as a record stores it beside the target: `null` for the account. */
export const auditTargetId = (target: AuditTarget): string | null => ('id' in target ? target.id : null)

/**
 * What a record's hash covers, as canonical JSON. Version 2: every stored field but
 * `hash` (its account, sequence, time, actor, action, target and target id, changes,
 * request id, client address, the previous hash and the key id), with `v: 2`. Version
 * 1, for records written before audit keys existed: `v: 1` and the fields of the entry
 * with the previous hash, without `sequence`, `targetId` and `keyId` (the chain checks
 * that `targetId` is the target's id). Throws for a value that cannot be encoded.
 */
export function auditRecordInput(record: Omit<AuditRecord, 'hash'>): string {
  const common = {
    accountId: record.accountId,
    at: record.at,
    actor: record.actor,
    action: record.action,
    target: record.target,
    changes: record.changes,
    requestId: record.requestId,
    clientAddress: record.clientAddress,
    previousHash: record.previousHash,
  }
  if (record.version === 1) return canonicalJson({ v: 1, ...common })
  return canonicalJson({ v: record.version, ...common, sequence: record.sequence, targetId: record.targetId, keyId: record.keyId })
}

/**
 * Places records in an account's chain and signs them (SPEC §5.44): each record's `hash`
 * is an HMAC-SHA256 under the audit key `keyId` of its canonical encoding, or a plain
 * SHA-256 when `keyId` is `null` (no audit key configured). A store calls `chain` with
 * the entry and its account's head, inside the change's transaction, and writes the
 * record it returns: the key stays in the process and never reaches the database.
 *
 * @example
 * ```ts
 * const record = signer.chain(entry, { sequence: 0, hash: GENESIS_HASH }) // an account's first record
 * ```
 */
export interface AuditSigner {
  /** The id of the key it signs with, stored with each record; `null` for plain SHA-256. */
  readonly keyId: string | null
  /**
   * The record a store writes for `entry` after the record `head` names (sequence 0 and
   * `GENESIS_HASH` (64 zeros) for an empty chain): sequence, encoding version, key id,
   * target id, previous hash and hash. Throws for a value that cannot be encoded.
   */
  chain(entry: AuditEntry, head: { readonly sequence: number; readonly hash: string }): AuditRecord
}

/**
 * The {@link AuditSigner} of key `keyId` whose MAC (lowercase hex) of an encoding is
 * `sign`; `keyId` `null` and SHA-256 for plain hashes.
 */
export function auditSigner(keyId: string | null, sign: (input: string) => string): AuditSigner {
  return Object.freeze({
    keyId,
    chain(entry: AuditEntry, head: { readonly sequence: number; readonly hash: string }): AuditRecord {
      const unsigned = {
        ...entry,
        sequence: head.sequence + 1,
        version: AUDIT_ENCODING_VERSION,
        keyId,
        targetId: auditTargetId(entry.target),
        previousHash: head.hash,
      }
      return { ...unsigned, hash: sign(auditRecordInput(unsigned)) }
    },
  })
}

/** Plain SHA-256 of a record's encoding. */
export const sha256Hex: (input: string) => string = createPasscodeHasher()

/**
 * Plain SHA-256, no key: what a service without `auditKeys` writes (SPEC §5.44: a
 * chain that whoever can write the table can recompute).
 *
 * @example
 * ```ts
 * const first = PLAIN_AUDIT_SIGNER.chain(entry, { sequence: 0, hash: GENESIS_HASH })
 * ```
 */
export const PLAIN_AUDIT_SIGNER: AuditSigner = auditSigner(null, sha256Hex)

/**
 * Which records a reader wants: actions, target, the user who acted, a time range.
 *
 * @example
 * ```ts
 * const filter: AuditRecordFilter = { actions: ['passcode.rotated'], from: Date.parse('2026-01-01') }
 * ```
 */
export interface AuditRecordFilter {
  /** Only these actions. */
  readonly actions?: readonly AuditAction[]
  /** Only records about this passcode ID or user ID (as stored in `targetId`). */
  readonly targetId?: string
  /** Only records of actions this user did, in any role (never the system's). */
  readonly actorUserId?: string
  /** Only records at or after this instant (epoch milliseconds). */
  readonly from?: number
  /** Only records before this instant (epoch milliseconds). */
  readonly to?: number
}

/** Whether `record` passes every filter given, as the SQL store's page filters decide it. */
export function matchesAuditFilter(record: AuditRecord, filter: AuditRecordFilter): boolean {
  return (
    (filter.actions === undefined || filter.actions.includes(record.action)) &&
    (filter.targetId === undefined || record.targetId === filter.targetId) &&
    (filter.actorUserId === undefined || (record.actor.type === 'user' && record.actor.userId === filter.actorUserId)) &&
    (filter.from === undefined || record.at >= filter.from) &&
    (filter.to === undefined || record.at < filter.to)
  )
}
