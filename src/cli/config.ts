import path from 'node:path'
import type { AuditKey, EncryptionKey } from '../index'
import { CliError } from './exit-codes'
import { legacyEncryptionKeys } from './encryption-keys'
import { commandName } from './command-name'
import type { CliIo } from './output'
import { hasRepeatedPepper, isOrigin, MIN_PEPPER_BYTES, ORIGIN_FORM } from './setting-rules'
import { declaredScopes, readSetting, SETTINGS, type Flags } from './settings'

/**
 * The settings of each command, put together from the table of settings (./settings.ts):
 * storage, mail, the server's own.
 */

export { readSetting, SETTINGS, type Flags }

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
      /** The scopes the host declares (SPEC §5.48), name → description. */
      readonly scopes?: Readonly<Record<string, string>>
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
      /** The scopes the host declares (SPEC §5.48), name → description. */
      readonly scopes?: Readonly<Record<string, string>>
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

/**
 * The scopes the host declares (SPEC §5.48): every `--declare-scope` (serve), else
 * `PASSCODE_AUTH_SCOPES` (entries separated by commas), else none. Every command that
 * opens the store reads it, so that one run alone checks a passcode's scopes as the
 * server does.
 */
function scopesSetting(io: CliIo, flags: Flags): Readonly<Record<string, string>> | undefined {
  const fromFlags = flags['declare-scope']
  const fromEnv = io.env.PASSCODE_AUTH_SCOPES
  if (typeof fromFlags !== 'object' && (fromEnv === undefined || fromEnv === '')) return undefined
  const setting = typeof fromFlags === 'object' ? '--declare-scope' : 'PASSCODE_AUTH_SCOPES'
  const result = declaredScopes.safeParse(typeof fromFlags === 'object' ? fromFlags : fromEnv!.split(','))
  if (result.success) return result.data
  const where = setting.startsWith('--') ? setting : `${setting} (environment variable)`
  throw new CliError('ERR_SETTING', `Invalid setting ${where}: ${result.error.issues[0]?.message ?? 'invalid value'}`, { setting })
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
  const scopes = scopesSetting(io, flags)
  const secrets = {
    ...(scopes !== undefined && { scopes }),
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
