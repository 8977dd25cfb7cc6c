import { z } from 'zod'
import type { AuditKey, EncryptionKey } from '../index'
import { CliError } from './exit-codes'
import { makeAKey, makeAnAuditKey } from './encryption-keys'
import { trustProxyEntry } from './server/client-address'
import type { CliIo } from './output'
import {
  ENCRYPTION_KEY_BYTES,
  KEY_ID,
  MAX_DECLARED_SCOPES,
  MAX_FAILURES_RANGE,
  MAX_PEPPERS,
  MAX_SCOPE_DESCRIPTION_LENGTH,
  MIN_AUDIT_KEY_BYTES,
  MIN_PEPPER_BYTES,
  RATE_LIMIT_DEFAULTS,
  SCOPE_NAME,
  WINDOW_MS_RANGE,
} from './setting-rules'

/**
 * The command's settings: each from a flag or an environment variable (the flag wins),
 * validated with zod. An error names the flag or variable that was used and never
 * echoes its value, which may be a secret. Secrets have no flag: a flag would show
 * in `ps` and in shell history.
 */

/** Flag values as parsed from the command line. */
export type Flags = Readonly<Record<string, string | boolean | readonly string[] | undefined>>

interface Setting<T> {
  readonly env: string
  readonly flag?: string
  readonly schema: z.ZodType<T, string | undefined>
}

const MAX_TIMER_MS = 2_147_483_647

const whole = (min: number, max: number, unit = '') => {
  const message = `must be a whole number${unit && ` of ${unit}`} from ${min} to ${max}`
  return z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message)
}

const url = (protocols: readonly string[], message: string) =>
  z.string().refine((value) => {
    try {
      const parsed = new URL(value)
      return protocols.includes(parsed.protocol) && parsed.hostname !== ''
    } catch {
      return false
    }
  }, message)

const ADDRESS = /^[^\s@,<>]+@[^\s@,<>]+$/

// The pepper and key rules are the service's (./setting-rules.ts); the CLI adds only
// what an environment variable needs: a length bound for the pepper text and the
// comma-separated forms.
const MAX_PEPPER_TEXT_BYTES = 1024
const PEPPER_TEXT = `${MIN_PEPPER_BYTES} to ${MAX_PEPPER_TEXT_BYTES} bytes`
const isPepperText = (value: string): boolean => {
  const bytes = Buffer.byteLength(value)
  return bytes >= MIN_PEPPER_BYTES && bytes <= MAX_PEPPER_TEXT_BYTES
}

// The limiter's ranges and defaults are the library's (./setting-rules.ts).
const MAX_FAILURES_TEXT = `must be "off" or a whole number of failed attempts from ${MAX_FAILURES_RANGE.min} to ${MAX_FAILURES_RANGE.max}`

/**
 * A list of `<key id>:<key in base64url>` entries, comma-separated, each key of a length
 * `fits` (`what` says which, `make` how to make one): the encryption keys, the audit keys.
 */
const keyList = (fits: (bytes: number) => boolean, what: string, make: () => string) =>
  z.string().transform((text, context): { id: string; key: string }[] => {
    const entries = text.split(',').map((entry) => entry.trim())
    const keys: { id: string; key: string }[] = []
    for (const [index, entry] of entries.entries()) {
      const separator = entry.indexOf(':')
      const id = entry.slice(0, separator)
      const key = entry.slice(separator + 1)
      const bytes = /^[A-Za-z0-9_-]+$/.test(key) ? Buffer.from(key, 'base64url').length : 0
      if (separator < 1 || !KEY_ID.test(id) || !fits(bytes)) {
        context.addIssue({
          code: 'custom',
          message: `entry ${index + 1} must be <key id>:<${what} in base64url>, entries separated by commas (${make()})`,
        })
        return z.NEVER
      }
      keys.push({ id, key })
    }
    if (new Set(keys.map((key) => key.id)).size !== keys.length) {
      context.addIssue({ code: 'custom', message: 'key ids must be unique' })
      return z.NEVER
    }
    return keys
  })

const encryptionKeys = keyList((bytes) => bytes === ENCRYPTION_KEY_BYTES, `${ENCRYPTION_KEY_BYTES} bytes`, makeAKey).transform(
  (keys): EncryptionKey[] => keys,
)
const auditKeys = keyList((bytes) => bytes >= MIN_AUDIT_KEY_BYTES, `${MIN_AUDIT_KEY_BYTES} bytes or more`, makeAnAuditKey).transform(
  (keys): AuditKey[] => keys,
)

const SCOPE_FORM = `<name>=<description> (a name is a lower-case letter, then up to 63 of a-z 0-9 _ . : -; a description 1 to ${MAX_SCOPE_DESCRIPTION_LENGTH} characters)`

/**
 * The scopes the host declares (SPEC §5.48), from `name=description` entries: name →
 * description, in the order given. An issue names the entry, never more of the text.
 */
export const declaredScopes = z.array(z.string()).transform((entries, context): Record<string, string> => {
  const scopes: Record<string, string> = {}
  for (const [index, entry] of entries.entries()) {
    const separator = entry.indexOf('=')
    const name = entry.slice(0, separator).trim()
    const description = entry.slice(separator + 1).trim()
    const problem =
      separator < 1 || !SCOPE_NAME.test(name) || description === '' || description.length > MAX_SCOPE_DESCRIPTION_LENGTH
        ? `entry ${index + 1} must be ${SCOPE_FORM}`
        : Object.hasOwn(scopes, name)
          ? `entry ${index + 1} declares ${name} a second time`
          : undefined
    if (problem !== undefined) {
      context.addIssue({ code: 'custom', message: problem })
      return z.NEVER
    }
    scopes[name] = description
  }
  if (entries.length > MAX_DECLARED_SCOPES) {
    context.addIssue({ code: 'custom', message: `must declare at most ${MAX_DECLARED_SCOPES} scopes` })
    return z.NEVER
  }
  return scopes
})

/** Every setting, by name. docs/cli.md lists the same table. */
export const SETTINGS = {
  dataDir: { env: 'PASSCODE_AUTH_DATA_DIR', flag: 'data-dir', schema: z.string().default('.data/passcode-auth') },
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: 'database-url',
    schema: url(['postgres:', 'postgresql:'], 'must be a postgres:// or postgresql:// URL').optional(),
  },
  schema: {
    env: 'PASSCODE_AUTH_DB_SCHEMA',
    flag: 'db-schema',
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,47}$/, 'must be 1 to 48 lower-case letters, digits or "_", not starting with a digit')
      .default('passcode_auth'),
  },
  pepper: {
    env: 'PASSCODE_AUTH_PEPPER',
    schema: z.string().refine(isPepperText, `must be ${PEPPER_TEXT}`).optional(),
  },
  previousPeppers: {
    env: 'PASSCODE_AUTH_PREVIOUS_PEPPERS',
    schema: z
      .string()
      .transform((text) => text.split(',').map((entry) => entry.trim()))
      .refine(
        (list) => list.length <= MAX_PEPPERS - 1 && list.every((entry) => entry === 'none' || isPepperText(entry)),
        `must be up to ${MAX_PEPPERS - 1} older peppers (${PEPPER_TEXT} each, or "none" for hashes made without one), separated by commas`,
      )
      .transform((list) => list.map((entry) => (entry === 'none' ? null : entry)))
      .optional(),
  },
  nextPeppers: {
    env: 'PASSCODE_AUTH_NEXT_PEPPERS',
    schema: z
      .string()
      .transform((text) => text.split(',').map((entry) => entry.trim()))
      .refine(
        (list) => list.length <= MAX_PEPPERS - 1 && list.every(isPepperText),
        `must be up to ${MAX_PEPPERS - 1} peppers that verify only (${PEPPER_TEXT} each), separated by commas`,
      )
      .optional(),
  },
  encryptionKeys: { env: 'PASSCODE_AUTH_ENCRYPTION_KEYS', schema: encryptionKeys.optional() },
  // SPEC §5.44: the first signs audit records, every one verifies; the same list on every instance.
  auditKeys: { env: 'PASSCODE_AUTH_AUDIT_KEYS', schema: auditKeys.optional() },
  lockWaitMs: {
    env: 'PASSCODE_AUTH_LOCK_WAIT_MS',
    schema: whole(0, 600_000, 'milliseconds').default(30_000),
  },
  host: {
    env: 'PASSCODE_AUTH_HOST',
    flag: 'host',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'must be a host name or IP address')
      .default('127.0.0.1'),
  },
  port: { env: 'PORT', flag: 'port', schema: whole(0, 65_535).default(3000) },
  notifyIntervalMs: {
    env: 'PASSCODE_AUTH_NOTIFY_INTERVAL_MS',
    flag: 'notify-interval-ms',
    schema: whole(1_000, MAX_TIMER_MS, 'milliseconds').default(3_600_000),
  },
  rateLimit: {
    env: 'PASSCODE_AUTH_RATE_LIMIT',
    flag: 'rate-limit',
    schema: z
      .string()
      .regex(/^(off|\d+)$/, MAX_FAILURES_TEXT)
      .transform((value) => (value === 'off' ? (false as const) : Number(value)))
      .refine((value) => value === false || (value >= MAX_FAILURES_RANGE.min && value <= MAX_FAILURES_RANGE.max), MAX_FAILURES_TEXT)
      .default(RATE_LIMIT_DEFAULTS.maxFailures),
  },
  rateLimitWindowMs: {
    env: 'PASSCODE_AUTH_RATE_LIMIT_WINDOW_MS',
    flag: 'rate-limit-window-ms',
    schema: whole(WINDOW_MS_RANGE.min, WINDOW_MS_RANGE.max, 'milliseconds').default(RATE_LIMIT_DEFAULTS.windowMs),
  },
  trustProxy: {
    env: 'PASSCODE_AUTH_TRUST_PROXY',
    flag: 'trust-proxy',
    schema: z
      .string()
      .transform((text) => text.split(',').map((entry) => entry.trim()))
      .refine(
        (entries) => entries.every((entry) => trustProxyEntry(entry) !== undefined),
        'must be IP addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal, separated by commas',
      )
      .optional(),
  },
  dashboard: {
    env: 'PASSCODE_AUTH_DASHBOARD',
    schema: z
      .string()
      .regex(/^(on|off|true|false|1|0)$/, 'must be "on" or "off"')
      .transform((value) => ['on', 'true', '1'].includes(value))
      .optional(),
  },
  shutdownGrace: {
    env: 'PASSCODE_AUTH_SHUTDOWN_GRACE',
    flag: 'shutdown-grace',
    schema: whole(0, 3_600, 'seconds').default(10),
  },
  logFormat: {
    env: 'PASSCODE_AUTH_LOG_FORMAT',
    flag: 'log-format',
    schema: z
      .string()
      .regex(/^(text|json)$/, 'must be "text" or "json"')
      .transform((value) => value as 'text' | 'json')
      .optional(),
  },
  smtpUrl: {
    env: 'PASSCODE_AUTH_SMTP_URL',
    schema: url(['smtp:', 'smtps:'], 'must be an smtp:// or smtps:// URL, like smtp://user:password@mail.example.com:587').optional(),
  },
  mailFrom: { env: 'PASSCODE_AUTH_MAIL_FROM', flag: 'mail-from', schema: z.string().optional() },
  notifyTo: {
    env: 'PASSCODE_AUTH_NOTIFY_TO',
    flag: 'notify-to',
    schema: z
      .string()
      .transform((text) => text.split(',').map((address) => address.trim()))
      .refine((list) => list.every((address) => ADDRESS.test(address)), 'must be email addresses separated by commas')
      .optional(),
  },
} satisfies Record<string, Setting<unknown>>

/** The name of a setting as the operator gave it: `--port`, or `PORT` from the environment. */
function source(setting: Setting<unknown>, flags: Flags): string {
  return setting.flag !== undefined && typeof flags[setting.flag] === 'string' ? `--${setting.flag}` : setting.env
}

/** Reads and validates one setting. Empty environment variables count as unset. */
export function readSetting<T>(io: CliIo, flags: Flags, setting: Setting<T>): T {
  const fromFlag = setting.flag === undefined ? undefined : flags[setting.flag]
  const fromEnv = io.env[setting.env]
  const raw = typeof fromFlag === 'string' ? fromFlag : fromEnv === '' ? undefined : fromEnv
  const result = setting.schema.safeParse(raw)
  if (result.success) return result.data
  const name = source(setting, flags)
  const where = name.startsWith('--') ? name : `${name} (environment variable)`
  throw new CliError('ERR_SETTING', `Invalid setting ${where}: ${result.error.issues[0]?.message ?? 'invalid value'}`, { setting: name })
}
