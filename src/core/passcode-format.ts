import { randomBytes as cryptoRandomBytes } from '@noble/hashes/utils.js'
import { encodeBase62, randomBase62 } from './base62'
import { crc32 } from './crc32'

/** The prefix of passcodes generated when the host does not choose one. */
export const DEFAULT_PASSCODE_PREFIX = 'psc'

/**
 * Length of the random part. 30 base62 characters carry 30 × log2(62) ≈ 178.6 bits,
 * above the 160 bits SPEC §5.5 asks for.
 */
export const SECRET_LENGTH = 30

/** Length of the base62 CRC32 checksum at the end of a passcode (62^6 > 2^32). */
export const CHECKSUM_LENGTH = 6

const PREFIX_RULE = /^[a-z][a-z0-9]{1,15}$/

/**
 * Regular expression that finds passcodes with the default `psc` prefix in text, for
 * secret scanners (GitHub secret scanning, gitleaks, trufflehog). Global flag: use it
 * with `matchAll`. Check candidates with {@link isWellFormedPasscode} to drop
 * look-alikes whose checksum does not match.
 *
 * @example
 * ```ts
 * import { PASSCODE_PATTERN, isWellFormedPasscode } from 'passcode-auth'
 *
 * const leaked = [...logText.matchAll(PASSCODE_PATTERN)]
 *   .map((m) => m[0])
 *   .filter((candidate) => isWellFormedPasscode(candidate))
 * ```
 */
export const PASSCODE_PATTERN: RegExp = passcodePattern(DEFAULT_PASSCODE_PREFIX)

/**
 * Builds the secret-scanner pattern for a custom prefix (see {@link PASSCODE_PATTERN}).
 *
 * @param prefix - the prefix the host configured, 2 to 16 characters of `[a-z0-9]`
 *   starting with a letter
 * @example
 * ```ts
 * const pattern = passcodePattern('acme') // matches acme_<36 base62 characters>
 * ```
 */
export function passcodePattern(prefix: string): RegExp {
  assertPrefix(prefix)
  return new RegExp(`\\b${prefix}_[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}\\b`, 'g')
}

/**
 * Whether a prefix is acceptable for generated passcodes: 2 to 16 characters of
 * `[a-z0-9]` starting with a letter.
 */
export function isValidPrefix(prefix: string): boolean {
  return PREFIX_RULE.test(prefix)
}

function assertPrefix(prefix: string): void {
  if (!isValidPrefix(prefix)) {
    throw new TypeError('A passcode prefix is 2 to 16 characters of [a-z0-9], starting with a letter')
  }
}

function checksumOf(prefixAndSecret: string): string {
  return encodeBase62(crc32(prefixAndSecret), CHECKSUM_LENGTH)
}

/**
 * Generates a new passcode value `<prefix>_<secret><checksum>` (SPEC §5.5): a
 * CSPRNG secret of 30 base62 characters followed by a CRC32 checksum of
 * prefix+secret in 6 base62 characters.
 *
 * @param options.prefix - the prefix. @default 'psc'
 * @param options.randomBytes - the CSPRNG, for tests. @default `crypto.getRandomValues`
 * @example
 * ```ts
 * import { generatePasscode, isWellFormedPasscode } from 'passcode-auth'
 *
 * const value = generatePasscode() // 'psc_' + 36 characters
 * isWellFormedPasscode(value) // true
 * ```
 */
export function generatePasscode(options: { prefix?: string; randomBytes?: (n: number) => Uint8Array } = {}): string {
  const prefix = options.prefix ?? DEFAULT_PASSCODE_PREFIX
  assertPrefix(prefix)
  const secret = randomBase62(SECRET_LENGTH, options.randomBytes ?? cryptoRandomBytes)
  const body = `${prefix}_${secret}`
  return body + checksumOf(prefix + secret)
}

/**
 * Checks, offline and without storage, whether a value has the shape of a passcode
 * and a matching checksum. Any valid prefix is accepted, so passcodes keep working
 * after a host changes its prefix. Runs in time linear in the value's length and
 * never throws.
 *
 * @example
 * ```ts
 * isWellFormedPasscode('psc_not-a-passcode') // false
 * ```
 */
export function isWellFormedPasscode(value: unknown): value is string {
  if (typeof value !== 'string') return false
  const underscore = value.indexOf('_')
  if (underscore < 2 || underscore > 16) return false
  if (value.length !== underscore + 1 + SECRET_LENGTH + CHECKSUM_LENGTH) return false
  const prefix = value.slice(0, underscore)
  if (!PREFIX_RULE.test(prefix)) return false
  const rest = value.slice(underscore + 1)
  if (!/^[0-9A-Za-z]+$/.test(rest)) return false
  const secret = rest.slice(0, SECRET_LENGTH)
  return rest.slice(SECRET_LENGTH) === checksumOf(prefix + secret)
}

/**
 * The display hint stored and shown instead of a passcode: its prefix and its last 4
 * characters, for example `psc_…Xy12` (SPEC §5.6). Reveals 4 characters of the
 * checksum-bearing tail, never enough to guess the secret.
 *
 * @example
 * ```ts
 * passcodeHint('psc_abc…wxyz') // 'psc_…wxyz'
 * ```
 */
export function passcodeHint(value: string): string {
  const underscore = value.indexOf('_')
  const prefix = underscore > 0 ? value.slice(0, underscore + 1) : ''
  return `${prefix}…${value.slice(-4)}`
}
