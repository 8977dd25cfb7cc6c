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
 * The keys as text, the form of the `PASSCODE_AUTH_ENCRYPTION_KEYS` variable of the
 * `passcode-auth` command, which `passcode-auth keys generate` prints: what an error about
 * that form asks for.
 */
const KEY_LIST_FORM =
  '`<key id>:<key>` entries separated by commas, each key 32 bytes in base64url (the form of PASSCODE_AUTH_ENCRYPTION_KEYS; `npx passcode-auth keys generate` makes one)'

/** `k2:<key>,k1:<key>` → `[{ id: 'k2', key }, { id: 'k1', key }]`; an entry that is not `<id>:<base64url>` is an issue naming it, never its value. */
const keyListSchema = z.string().transform((text, context): EncryptionKey[] => {
  if (text.trim() === '') {
    context.addIssue({ code: 'custom', message: `is empty: give ${KEY_LIST_FORM}, or leave the option out` })
    return z.NEVER
  }
  const keys: EncryptionKey[] = []
  for (const [index, entry] of text.split(',').entries()) {
    const separator = entry.indexOf(':')
    const id = entry.slice(0, separator).trim()
    const key = entry.slice(separator + 1).trim()
    if (separator < 0 || !keyIdSchema.safeParse(id).success || !/^[A-Za-z0-9_-]+$/.test(key)) {
      context.addIssue({ code: 'custom', message: `entry ${index + 1} of the text is not \`<key id>:<key>\`: give ${KEY_LIST_FORM}` })
      return z.NEVER
    }
    keys.push({ id, key })
  }
  return keys
})

/**
 * The `encryptionKeys` option, owned by the user passcodes: at least one key when
 * given, as a list or as the text of {@link KEY_LIST_FORM}. The length of each key and
 * the uniqueness of the IDs are checked when the keys are loaded (a
 * `ConfigurationError` that names the key).
 */
export const encryptionKeysSchema = z.union(
  [keyListSchema, z.array(z.object({ id: keyIdSchema, key: z.union([z.string(), bytesOption]) })).min(1, 'must hold at least one key when given')],
  { error: `must be a list of { id, key } or text of ${KEY_LIST_FORM}` },
)
