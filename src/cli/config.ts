import path from 'node:path'
import { z } from 'zod'
import type { AuditKey, EncryptionKey } from '../index'
import { CliError } from './exit-codes'
import { legacyEncryptionKeys, makeAKey, makeAnAuditKey } from './encryption-keys'
import { commandName } from './command-name'
import { trustProxyEntry } from './server/client-address'
import type { CliIo } from './output'
import {
  ENCRYPTION_KEY_BYTES,
  hasRepeatedPepper,
  isOrigin,
  KEY_ID,
  MAX_FAILURES_RANGE,
  MAX_PEPPERS,
  MIN_AUDIT_KEY_BYTES,
  MIN_PEPPER_BYTES,
  ORIGIN_FORM,
  RATE_LIMIT_DEFAULTS,
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

/** Where passcodes live: an embedded data folder, or a PostgreSQL server. */
export type StorageConfig =
  | {
      readonly kind: 'embedded'
      readonly dataDir: string
      /** How long to wait for a data folder another command is using. */
      readonly lockWaitMs: number
      readonly pepper?: string
      /** Older peppers that still verify, re-hashed under the current one (SPEC §5.28); `null` for none. */
      readonly previousPeppers?: readonly (string | null)[]
      /** Peppers that verify only, for a rolling pepper change (SPEC §5.34). */
      readonly nextPeppers?: readonly string[]
      readonly encryptionKeys?: EncryptionKey[]
      /** The keys of the audit chain (SPEC §5.44); the first signs. */
      readonly auditKeys?: AuditKey[]
    }
  | {
      readonly kind: 'postgres'
      readonly databaseUrl: string
      /** The PostgreSQL schema that holds the tables. */
      readonly schema: string
      readonly pepper: string
      /** Older peppers that still verify, re-hashed under the current one (SPEC §5.28); `null` for none. */
      readonly previousPeppers?: readonly (string | null)[]
      /** Peppers that verify only, for a rolling pepper change (SPEC §5.34). */
      readonly nextPeppers?: readonly string[]
      readonly encryptionKeys?: EncryptionKey[]
      /** The keys of the audit chain (SPEC §5.44); the first signs. */
      readonly auditKeys?: AuditKey[]
    }

/** The error for PASSCODE_AUTH_PREVIOUS_PEPPERS (or `setting`) holding `current` (named for a person) or one pepper twice. */
export function repeatedPepper(current: string, setting = 'PASSCODE_AUTH_PREVIOUS_PEPPERS'): CliError {
  return new CliError(
    'ERR_SETTING',
    `Invalid setting ${setting} (environment variable): must not hold the current pepper (${current}) or the same pepper twice`,
    { setting },
  )
}

/** The setting to name when the peppers of `previous` and `next` hold one twice: the one that holds the repeat. */
function repeatedPepperSetting(
  current: string | null | undefined,
  previous: readonly (string | null)[] = [],
  next: readonly string[] = [],
): string | undefined {
  const before = current === undefined ? [] : [current]
  if (hasRepeatedPepper([...before, ...previous])) return 'PASSCODE_AUTH_PREVIOUS_PEPPERS'
  if (hasRepeatedPepper([...before, ...previous, ...next])) return 'PASSCODE_AUTH_NEXT_PEPPERS'
  return undefined
}

/** The storage settings of every command that opens the store. */
export function storageConfig(io: CliIo, flags: Flags): StorageConfig {
  const pepper = readSetting(io, flags, SETTINGS.pepper)
  const keys = readSetting(io, flags, SETTINGS.encryptionKeys) ?? legacyEncryptionKeys(io.env, (text) => io.stderr(`${text}\n`))
  const auditKeys = readSetting(io, flags, SETTINGS.auditKeys)
  const previousPeppers = readSetting(io, flags, SETTINGS.previousPeppers)
  const nextPeppers = readSetting(io, flags, SETTINGS.nextPeppers)
  // The service refuses a pepper listed twice: say which setting holds it, before anything is opened.
  const repeated = repeatedPepperSetting(pepper, previousPeppers, nextPeppers)
  if (repeated !== undefined) throw repeatedPepper('PASSCODE_AUTH_PEPPER', repeated)
  const secrets = {
    ...(pepper !== undefined && { pepper }),
    ...(keys !== undefined && { encryptionKeys: keys }),
    ...(auditKeys !== undefined && { auditKeys }),
    ...(previousPeppers !== undefined && { previousPeppers }),
    ...(nextPeppers !== undefined && { nextPeppers }),
  }
  const databaseUrl = readSetting(io, flags, SETTINGS.databaseUrl)
  if (databaseUrl === undefined) {
    const dataDir = path.resolve(io.cwd, readSetting(io, flags, SETTINGS.dataDir))
    return { kind: 'embedded', dataDir, lockWaitMs: readSetting(io, flags, SETTINGS.lockWaitMs), ...secrets }
  }
  // Every instance on one database must hash with the same pepper, so it cannot be a
  // file generated per machine.
  if (pepper === undefined) {
    throw new CliError(
      'ERR_SETTING',
      `PASSCODE_AUTH_PEPPER is required with DATABASE_URL: every instance that shares the database must use the same pepper (${MIN_PEPPER_BYTES} bytes or more; make one with \`${commandName()} keys generate --pepper\`)`,
      { setting: 'PASSCODE_AUTH_PEPPER' },
    )
  }
  return { kind: 'postgres', databaseUrl, schema: readSetting(io, flags, SETTINGS.schema), ...secrets, pepper }
}

/** How expiry notifications go out: printed on stdout, or sent through SMTP. */
export type MailConfig =
  | { readonly kind: 'console'; readonly to: readonly string[] }
  | { readonly kind: 'smtp'; readonly url: URL; readonly from: string; readonly to: readonly string[] }

/** The mail settings of `serve` and `notify`. */
export function mailConfig(io: CliIo, flags: Flags): MailConfig {
  const smtpUrl = readSetting(io, flags, SETTINGS.smtpUrl)
  const to = readSetting(io, flags, SETTINGS.notifyTo)
  const from = readSetting(io, flags, SETTINGS.mailFrom)
  if (smtpUrl === undefined) return { kind: 'console', to: to ?? ['operator@localhost'] }
  const missing = from === undefined ? SETTINGS.mailFrom : to === undefined ? SETTINGS.notifyTo : undefined
  if (missing !== undefined) {
    throw new CliError('ERR_SETTING', `${missing.env} (or --${missing.flag}) is required with PASSCODE_AUTH_SMTP_URL`, { setting: missing.env })
  }
  return { kind: 'smtp', url: new URL(smtpUrl), from: from!, to: to! }
}

/** The brute-force limiter of `serve`: failed attempts per address and per account in the window, or off. */
export type RateLimitConfig = false | { readonly maxFailures: number; readonly windowMs: number }

/**
 * The origins whose pages may call `/v1/connect` from a browser: every `--cors-origin`,
 * else `PASSCODE_AUTH_CORS_ORIGINS` (comma-separated), else none (CORS off).
 */
function corsOrigins(io: CliIo, flags: Flags): readonly string[] {
  const fromFlags = flags['cors-origin']
  const fromEnv = io.env.PASSCODE_AUTH_CORS_ORIGINS
  const origins =
    typeof fromFlags === 'object' ? fromFlags : fromEnv === undefined || fromEnv === '' ? [] : fromEnv.split(',').map((origin) => origin.trim())
  const setting = typeof fromFlags === 'object' ? '--cors-origin' : 'PASSCODE_AUTH_CORS_ORIGINS'
  if (!origins.every(isOrigin)) {
    throw new CliError(
      'ERR_SETTING',
      `Invalid setting ${setting}${setting.startsWith('--') ? '' : ' (environment variable)'}: must be ${ORIGIN_FORM}`,
      { setting },
    )
  }
  return origins
}

/** The key file of `POST /v1/leaks` (SPEC §5.42): `--leak-keys`, else `PASSCODE_AUTH_LEAK_KEYS`, else off. */
function leakKeysFile(io: CliIo, flags: Flags): { file: string; setting: string } | undefined {
  const fromFlag = flags['leak-keys']
  if (typeof fromFlag === 'string' && fromFlag !== '') return { file: fromFlag, setting: '--leak-keys' }
  const fromEnv = io.env.PASSCODE_AUTH_LEAK_KEYS
  return fromEnv === undefined || fromEnv === '' ? undefined : { file: fromEnv, setting: 'PASSCODE_AUTH_LEAK_KEYS (environment variable)' }
}

/** The settings of `serve` beyond storage and mail. */
export function serverConfig(
  io: CliIo,
  flags: Flags,
): {
  host: string
  port: number
  notifyIntervalMs: number
  rateLimit: RateLimitConfig
  corsOrigins: readonly string[]
  trustProxy: readonly string[]
  logFormat: 'text' | 'json'
  logColor: boolean
  dashboard: boolean
  shutdownGraceMs: number
  leakKeysFile: { file: string; setting: string } | undefined
} {
  const maxFailures = readSetting(io, flags, SETTINGS.rateLimit)
  const host = readSetting(io, flags, SETTINGS.host)
  const windowMs = readSetting(io, flags, SETTINGS.rateLimitWindowMs)
  // For a person on a terminal, for a log collector anywhere else.
  const logFormat = readSetting(io, flags, SETTINGS.logFormat) ?? (io.stdoutIsTTY === true ? 'text' : 'json')
  return {
    host,
    port: readSetting(io, flags, SETTINGS.port),
    notifyIntervalMs: readSetting(io, flags, SETTINGS.notifyIntervalMs),
    rateLimit: maxFailures === false ? false : { maxFailures, windowMs },
    corsOrigins: corsOrigins(io, flags),
    trustProxy: readSetting(io, flags, SETTINGS.trustProxy) ?? [],
    logFormat,
    // Colours only where a terminal shows them, and not against NO_COLOR (no-color.org).
    logColor: logFormat === 'text' && io.stdoutIsTTY === true && (io.env.NO_COLOR ?? '') === '',
    dashboard: dashboardEnabled(io, flags, host),
    shutdownGraceMs: readSetting(io, flags, SETTINGS.shutdownGrace) * 1_000,
    leakKeysFile: leakKeysFile(io, flags),
  }
}

/**
 * Whether `serve` serves the operator dashboard: `--dashboard` or `--no-dashboard`, else
 * `PASSCODE_AUTH_DASHBOARD` (`on` or `off`), else on only for a loopback `--host`: a
 * server bound to every interface does not offer an operator login to the network
 * unless told to (SPEC §5.35).
 */
function dashboardEnabled(io: CliIo, flags: Flags, host: string): boolean {
  if (flags.dashboard === true && flags['no-dashboard'] === true) {
    throw new CliError('ERR_USAGE', '--dashboard and --no-dashboard cannot be given together', { setting: '--dashboard' })
  }
  if (flags.dashboard === true) return true
  if (flags['no-dashboard'] === true) return false
  return readSetting(io, flags, SETTINGS.dashboard) ?? isLoopbackHost(host)
}

/** `localhost`, `127.0.0.0/8` and `::1` (also IPv4-mapped): addresses only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (bare === 'localhost') return true
  let hostname: string
  try {
    // The URL parser writes every spelling of an address one way: [::1], 127.0.0.1, [::ffff:7f00:1].
    hostname = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname
  } catch {
    return false
  }
  const mapped = /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)
  return hostname === '[::1]' || mapped || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}
