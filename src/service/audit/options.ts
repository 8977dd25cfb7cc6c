import { z } from 'zod'
import { MIN_AUDIT_KEY_BYTES } from '../../core/audit-keys'
import { decodeBase64url } from '../base64url'
import { bytesOption } from '../option-checks'

export { MIN_AUDIT_KEY_BYTES }

/**
 * A key of the audit chain (SPEC §5.44): records are signed with an HMAC-SHA256 under it,
 * in the process; it is never sent to the database.
 *
 * @example
 * ```ts
 * const auditKeys: AuditKey[] = [{ id: 'a2', key: process.env.AUDIT_KEY_A2! }, { id: 'a1', key: process.env.AUDIT_KEY_A1! }]
 * ```
 */
export interface AuditKey {
  /** Stored with each record it signs (`keyId`), so older records stay verifiable after a rotation. */
  readonly id: string
  /** At least 32 bytes, or the same as base64url text. */
  readonly key: Uint8Array | string
}

/** A key's bytes; `undefined` for text that is not base64url. */
export function auditKeyBytes(key: Uint8Array | string): Uint8Array | undefined {
  if (typeof key !== 'string') return key
  try {
    return decodeBase64url(key)
  } catch {
    return undefined
  }
}

/** A key ID: what each record stores as `keyId`. */
const keyIdSchema = z.string().regex(/^[\x21-\x7e]{1,64}$/, 'must be 1 to 64 visible ASCII characters')

const keySchema = z
  .union([z.string(), bytesOption], { error: `must be ${MIN_AUDIT_KEY_BYTES} bytes or more, or base64url text of them` })
  .refine((key) => (auditKeyBytes(key)?.length ?? 0) >= MIN_AUDIT_KEY_BYTES, {
    message: `must be ${MIN_AUDIT_KEY_BYTES} bytes or more, or base64url text of them`,
  })

/**
 * The `auditKeys` option, owned by the audit trail: the first key signs new records,
 * every one verifies the records it signed. At least one key when given, each id once.
 * Messages name the key by its id, never its value.
 */
export const auditKeysSchema = z
  .array(z.object({ id: keyIdSchema, key: keySchema }).strict())
  .min(1, 'must hold at least one key when given')
  .refine((keys) => new Set(keys.map((key) => key.id)).size === keys.length, { message: 'must not use a key id twice' })
