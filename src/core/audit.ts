import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

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
 * counts from 1), the hash of the record before it and its own hash
 * (`auditRecordHash`).
 *
 * @example
 * ```ts
 * const ok = auditRecordHash(record) === record.hash
 * ```
 */
export interface AuditRecord extends AuditEntry {
  /** Its position in the account's chain, 1 for the first record ever. */
  readonly sequence: number
  /** The hash of the record before it; `GENESIS_HASH` (64 zeros) for the first one. */
  readonly previousHash: string
  /** SHA-256 (lowercase hex) of its canonical encoding. */
  readonly hash: string
}

/** The `previousHash` of an account's first record: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64)

/** The version of the canonical encoding, inside every hashed record. */
export const AUDIT_ENCODING_VERSION = 1

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

/** A field whose canonical JSON the SQL store writes into the hash input itself (see {@link auditHashInputParts}). */
export type AuditHashHole = 'changes' | 'target'

/**
 * What a record's hash covers, in parts around the values a store fills in: every
 * field but `sequence` (the row's place, which the chain itself proves) and `hash`,
 * plus the encoding version `v`, with keys sorted. The `previousHash` value (the chain
 * head's hash, between the quotes that end one part and start the next) is always left
 * out; so is the canonical JSON of each field in `holes`. The SQL store joins the parts
 * around those values inside its append statement; {@link auditHashInput} joins them here.
 */
export function auditHashInputParts(entry: AuditEntry, holes: readonly AuditHashHole[] = []): string[] {
  const fields: Record<string, unknown> = {
    v: AUDIT_ENCODING_VERSION,
    accountId: entry.accountId,
    at: entry.at,
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    changes: entry.changes,
    requestId: entry.requestId,
    clientAddress: entry.clientAddress,
    previousHash: '',
  }
  const parts: string[] = []
  let part = '{'
  for (const [index, key] of Object.keys(fields).sort().entries()) {
    part += `${index === 0 ? '' : ','}${JSON.stringify(key)}:`
    if (key === 'previousHash') {
      parts.push(`${part}"`)
      part = '"'
    } else if ((holes as readonly string[]).includes(key)) {
      parts.push(part)
      part = ''
    } else {
      part += canonicalJson(fields[key])
    }
  }
  parts.push(`${part}}`)
  return parts
}

/** {@link auditHashInputParts} with only the `previousHash` value left out: the two parts around it. */
export function auditHashInputAround(entry: AuditEntry): readonly [before: string, after: string] {
  const [before, after] = auditHashInputParts(entry)
  return [before!, after!]
}

/** The canonical encoding a record's hash covers (see {@link auditHashInputAround}). */
export function auditHashInput(record: AuditEntry & { readonly previousHash: string }): string {
  const [before, after] = auditHashInputAround(record)
  return `${before}${record.previousHash}${after}`
}

/**
 * The SHA-256 (lowercase hex) of a record's canonical encoding: what `hash` holds and
 * the next record's `previousHash` repeats.
 *
 * @example
 * ```ts
 * const hash = auditRecordHash({ ...entry, previousHash: GENESIS_HASH })
 * ```
 */
export function auditRecordHash(record: AuditEntry & { readonly previousHash: string }): string {
  return bytesToHex(sha256(utf8ToBytes(auditHashInput(record))))
}

/**
 * Places an entry in its chain after the record `head` names (sequence 0 and
 * `GENESIS_HASH` (64 zeros) for an empty chain). Throws for a value that cannot be
 * encoded, before the caller has changed anything.
 */
export function chainAuditEntry(entry: AuditEntry, head: { readonly sequence: number; readonly hash: string }): AuditRecord {
  const linked = { ...entry, previousHash: head.hash }
  return { ...linked, sequence: head.sequence + 1, hash: auditRecordHash(linked) }
}
