import { z } from 'zod'
import { bytesOption } from '../option-checks'

/** A key for encrypting user passcodes at rest (JWE `dir` + `A256GCM`). */
export interface EncryptionKey {
  /** Key ID written into each JWE header (`kid`), so old values stay readable after rotation. */
  readonly id: string
  /** 32 bytes, or the same as base64url text. */
  readonly key: Uint8Array | string
}

/** The length of an encryption key (A256GCM), in bytes. */
export const ENCRYPTION_KEY_BYTES = 32

/** A key ID: what each JWE header carries as `kid`. */
export const keyIdSchema = z.string().regex(/^[\x21-\x7e]{1,64}$/, 'must be 1 to 64 visible ASCII characters')

/**
 * The `encryptionKeys` option, owned by the user passcodes: at least one key when
 * given. The length of each key and the uniqueness of the IDs are checked when the
 * keys are loaded (a `ConfigurationError` that names the key).
 */
export const encryptionKeysSchema = z
  .array(z.object({ id: keyIdSchema, key: z.union([z.string(), bytesOption]) }))
  .min(1, 'must hold at least one key when given')
