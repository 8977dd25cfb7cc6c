/**
 * The library's rules for the settings the command reads from the environment, stated
 * again here so that a bad value is refused naming its flag or environment variable,
 * before anything is opened. The service checks the same values once more when the
 * command creates it; `test/cli/setting-rules.test.ts` keeps these equal to the
 * service's own (src/service/verify/options.ts, src/service/limiter/options.ts,
 * src/service/user-passcodes/options.ts, src/http/cors.ts).
 */

/** The shortest pepper the service takes, in bytes. */
export const MIN_PEPPER_BYTES = 16

/** How many peppers the service takes: the current one and the older ones. */
export const MAX_PEPPERS = 8

/** The length of an encryption key for user passcodes, in bytes. */
export const ENCRYPTION_KEY_BYTES = 32

/** The shortest key of the audit chain (`auditKeys`, SPEC §5.44), in bytes. */
export const MIN_AUDIT_KEY_BYTES = 32

/** A key ID: 1 to 64 visible ASCII characters. */
export const KEY_ID = /^[\x21-\x7e]{1,64}$/

/** The limiter's range of failed attempts before a block. */
export const MAX_FAILURES_RANGE = { min: 1, max: 10_000 } as const

/** The limiter's range of windows, in milliseconds. */
export const WINDOW_MS_RANGE = { min: 1_000, max: 86_400_000 } as const

/** The limiter's defaults: 50 failed attempts per address and per account in 15 minutes. */
export const RATE_LIMIT_DEFAULTS = { windowMs: 900_000, maxFailures: 50 } as const

/** Whether a list of peppers (`null`: hashes made without one) holds one twice. */
export const hasRepeatedPepper = (list: readonly (string | null)[]): boolean => new Set(list).size !== list.length

/** What a CORS origin must be: the service's message for a refused one. */
export const ORIGIN_FORM = 'an origin such as https://dashboard.partner.example (scheme, host and port only: no path, no trailing slash)'

/** Whether `value` is exactly an origin's own serialisation (`https://host[:port]`), as the service requires. */
export function isOrigin(value: string): boolean {
  try {
    const origin = new URL(value).origin
    return origin !== 'null' && origin === value
  } catch {
    return false
  }
}
