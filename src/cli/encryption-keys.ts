import { randomBytes } from 'node:crypto'
import type { EncryptionKey } from '../index'
import { commandName } from './command-name'
import { CliError } from './exit-codes'
import type { CliIo } from './output'

/**
 * The encryption keys of user passcodes come from one variable,
 * `PASSCODE_AUTH_ENCRYPTION_KEYS`: `id:key` entries, comma-separated, each key 32 bytes
 * in base64url; the first encrypts, every one decrypts. The guides once showed two
 * other forms; they are read for one release, with a warning naming the new one.
 */

/** The variable that holds the keys. */
export const KEYS_VARIABLE = 'PASSCODE_AUTH_ENCRYPTION_KEYS'

/** How an operator makes a key, for every message that asks for one: a command that works as printed, here. */
export const makeAKey = (): string => `make one with \`${commandName()} keys generate\``

const KEY_BYTES = 32
const LEGACY_ONE = 'PASSCODE_KEY'
const LEGACY_PREFIX = 'PASSCODE_AUTH_KEY_'

/**
 * Keys from the names of earlier guides, when `PASSCODE_AUTH_ENCRYPTION_KEYS` is unset:
 * `PASSCODE_AUTH_KEY_<ID>` (base64url; the ids in descending order, so `K2` encrypts
 * before `K1`) and `PASSCODE_KEY` (standard base64, id `k1`). Each one read is reported
 * through `warn`, naming the variable and never its value.
 *
 * @example
 * ```ts
 * legacyEncryptionKeys(io.env, output.notice) // [{ id: 'k2', key: '…' }, { id: 'k1', key: '…' }]
 * ```
 */
export function legacyEncryptionKeys(env: CliIo['env'], warn: (text: string) => void): EncryptionKey[] | undefined {
  const named = Object.keys(env)
    .filter((name) => name.startsWith(LEGACY_PREFIX) && name.length > LEGACY_PREFIX.length && (env[name] ?? '') !== '')
    .sort()
    .reverse()
  const keys: EncryptionKey[] = []
  for (const name of named) keys.push({ id: name.slice(LEGACY_PREFIX.length).toLowerCase(), key: legacyKey(name, env[name]!, 'base64url') })
  const single = env[LEGACY_ONE] ?? ''
  if (single !== '' && !keys.some((key) => key.id === 'k1')) keys.push({ id: 'k1', key: legacyKey(LEGACY_ONE, single, 'base64') })
  if (keys.length === 0) return undefined
  warn(
    `warning: ${[...named, ...(single !== '' ? [LEGACY_ONE] : [])].join(', ')} ${named.length + (single !== '' ? 1 : 0) === 1 ? 'is' : 'are'} read for one more release: ` +
      `set ${KEYS_VARIABLE} instead (${keys.map((key) => `${key.id}:<key>`).join(',')}, base64url; ${makeAKey()})`,
  )
  return keys
}

function legacyKey(name: string, text: string, encoding: 'base64' | 'base64url'): string {
  const pattern = encoding === 'base64' ? /^[A-Za-z0-9+/]+={0,2}$/ : /^[A-Za-z0-9_-]+$/
  const bytes = pattern.test(text.trim()) ? Buffer.from(text.trim(), encoding) : Buffer.alloc(0)
  if (bytes.length !== KEY_BYTES) {
    throw new CliError(
      'ERR_SETTING',
      `Invalid setting ${name} (environment variable): must be ${KEY_BYTES} bytes in ${encoding}; better, set ${KEYS_VARIABLE} (${makeAKey()})`,
      {
        setting: name,
      },
    )
  }
  return bytes.toString('base64url')
}

/**
 * The error for a command that needs a key where none is set: a configuration error
 * (exit 2) that names the variable and how to make a key.
 *
 * @example
 * ```ts
 * if (!runtime.hasEncryptionKeys) throw missingKeyError()
 * ```
 */
export function missingKeyError(): CliError {
  return new CliError(
    'ERR_SETTING',
    `${KEYS_VARIABLE} is not set: user passcodes are encrypted with it (the same list on every instance); ${makeAKey()} and set ${KEYS_VARIABLE}=<that line>`,
    { setting: KEYS_VARIABLE },
  )
}

/** A new key line for `PASSCODE_AUTH_ENCRYPTION_KEYS`: `<id>:<32 random bytes in base64url>`. */
export function newKeyLine(id: string): string {
  return `${id}:${randomBytes(KEY_BYTES).toString('base64url')}`
}

/** The variable that holds the keys of the audit chain (SPEC §5.44): the same form, the first signs. */
export const AUDIT_KEYS_VARIABLE = 'PASSCODE_AUTH_AUDIT_KEYS'

/** How an operator makes an audit key, for every message that asks for one. */
export const makeAnAuditKey = (): string => `make one with \`${commandName()} keys generate --audit\``

/** A new pepper for `PASSCODE_AUTH_PEPPER`: 32 random bytes in base64url. */
export function newPepper(): string {
  return randomBytes(32).toString('base64url')
}
