import { ConfigurationError, PasscodeAuthError } from '../../core/errors'
import { decodeBase64url } from '../base64url'
import { ENCRYPTION_KEY_BYTES, type EncryptionKey } from './options'

/** Encrypts and decrypts user passcode values at rest (SPEC §5.6). */
export interface UserPasscodeCrypto {
  encrypt(value: string, owner: { accountId: string; userId: string }): Promise<string>
  decrypt(ciphertext: string, owner: { accountId: string; userId: string }): Promise<string>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

// jose is loaded at the first encryption or decryption, not with the service: a host
// that grants no user passcodes, and every process start, skip its module loading
// (about 40 ms of CPU, a tenth of what `passcode-auth serve` adds to opening PGlite).
let jose: Promise<typeof import('jose')> | undefined
const loadJose = () => (jose ??= import('jose'))

function toKeyBytes(key: EncryptionKey): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = typeof key.key === 'string' ? decodeBase64url(key.key) : key.key
  } catch {
    throw new ConfigurationError(`Encryption key "${key.id}" is not valid base64url`)
  }
  if (bytes.length !== ENCRYPTION_KEY_BYTES)
    throw new ConfigurationError(`Encryption key "${key.id}" must be ${ENCRYPTION_KEY_BYTES} bytes (A256GCM)`)
  return bytes
}

/**
 * JWE `dir` + `A256GCM` with the key ID in the protected header. The plaintext binds
 * the value to its account and user, so a ciphertext copied onto another row does not
 * decrypt there. Returns `undefined` when no keys are configured: granting then fails
 * with a ConfigurationError at the call, not at construction, because hosts that use
 * only account passcodes need no key.
 */
export function createUserPasscodeCrypto(keys: readonly EncryptionKey[] | undefined): UserPasscodeCrypto | undefined {
  if (keys === undefined) return undefined
  const ring = new Map<string, Uint8Array>()
  for (const key of keys) {
    if (ring.has(key.id)) throw new ConfigurationError(`Encryption key id "${key.id}" is used twice`)
    ring.set(key.id, toKeyBytes(key))
  }
  const current = keys[0]!
  const currentKey = ring.get(current.id)!

  return {
    async encrypt(value, owner) {
      const { CompactEncrypt } = await loadJose()
      const plaintext = encoder.encode(JSON.stringify({ v: value, a: owner.accountId, u: owner.userId }))
      return new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: current.id }).encrypt(currentKey)
    },
    async decrypt(ciphertext, owner) {
      const { compactDecrypt, decodeProtectedHeader } = await loadJose()
      const { kid } = decodeProtectedHeader(ciphertext)
      const key = kid === undefined ? undefined : ring.get(kid)
      if (key === undefined) {
        throw new ConfigurationError(`No encryption key with id "${String(kid)}" is configured; keep retired keys in encryptionKeys`)
      }
      const { plaintext } = await compactDecrypt(ciphertext, key, {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
      })
      const payload = JSON.parse(decoder.decode(plaintext)) as { v: string; a: string; u: string }
      if (payload.a !== owner.accountId || payload.u !== owner.userId) {
        throw new PasscodeAuthError('ERR_CONFIGURATION', 'A stored user passcode does not belong to this user')
      }
      return payload.v
    },
  }
}

/** The error for granting or revealing user passcodes without keys. */
export function missingKeysError(): ConfigurationError {
  return new ConfigurationError(
    'User passcodes need encryptionKeys: pass createPasscodeAuth({ encryptionKeys: [{ id, key }] }) with a 32-byte key, ' +
      'or the text of PASSCODE_AUTH_ENCRYPTION_KEYS (`npx passcode-auth keys generate` makes one)',
  )
}
