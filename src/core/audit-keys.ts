import { auditRecordInput, auditSigner, PLAIN_AUDIT_SIGNER, sha256Hex, type AuditRecord, type AuditSigner } from './audit'
import { createPasscodeHasher } from './hashing'

/** The shortest audit key, in bytes: as long as the HMAC-SHA256 output. */
export const MIN_AUDIT_KEY_BYTES = 32

/**
 * An audit key as the service holds it once decoded: its id, stored with each record it
 * signs, and its bytes (never written anywhere).
 *
 * @example
 * ```ts
 * const key: AuditKeyBytes = { id: 'a1', key: crypto.getRandomValues(new Uint8Array(32)) }
 * ```
 */
export interface AuditKeyBytes {
  /** Stored as each record's `keyId`. */
  readonly id: string
  /** At least {@link MIN_AUDIT_KEY_BYTES} bytes. */
  readonly key: Uint8Array
}

/**
 * The audit keys of a service (SPEC §5.44): the first one signs new records, every one
 * checks the records it signed (so keys rotate), and without keys new records carry a
 * plain SHA-256.
 *
 * @example
 * ```ts
 * const keys = auditKeyring([{ id: 'a2', key: newKey }, { id: 'a1', key: oldKey }])
 * keys.expectedHash(record) === record.hash // true for an untouched record signed with a1 or a2
 * ```
 */
export interface AuditKeyring {
  /** Signs new records: an HMAC under the first key, or plain SHA-256 without keys. */
  readonly signer: AuditSigner
  /** Whether any key is configured. */
  readonly keyed: boolean
  /** Whether a key of this id is configured. */
  knows(keyId: string): boolean
  /**
   * The hash `record` must carry for its content, by its `version` and `keyId`:
   * `undefined` when no configured key has its `keyId`, or when its content cannot be
   * encoded (a value edited into something no record holds).
   */
  expectedHash(record: AuditRecord): string | undefined
}

/**
 * Builds the keyring of {@link AuditKeyring} from decoded keys (an empty list: no keys).
 * Throws a `TypeError` for a key shorter than {@link MIN_AUDIT_KEY_BYTES} or an id used twice.
 *
 * @example
 * ```ts
 * const { signer } = auditKeyring([{ id: 'a1', key }])
 * const record = signer.chain(entry, head)
 * ```
 */
export function auditKeyring(keys: readonly AuditKeyBytes[]): AuditKeyring {
  const macs = new Map<string, (input: string) => string>()
  for (const { id, key } of keys) {
    if (key.length < MIN_AUDIT_KEY_BYTES) throw new TypeError(`Audit key "${id}" must be at least ${MIN_AUDIT_KEY_BYTES} bytes`)
    if (macs.has(id)) throw new TypeError(`Audit key id "${id}" is used twice`)
    macs.set(id, createPasscodeHasher(key))
  }
  const first = keys[0]
  const signer: AuditSigner = first === undefined ? PLAIN_AUDIT_SIGNER : auditSigner(first.id, macs.get(first.id)!)
  return {
    signer,
    keyed: first !== undefined,
    knows: (keyId) => macs.has(keyId),
    expectedHash(record) {
      const sign = record.keyId === null ? sha256Hex : macs.get(record.keyId)
      if (sign === undefined) return undefined
      try {
        return sign(auditRecordInput(record))
      } catch {
        return undefined
      }
    },
  }
}
