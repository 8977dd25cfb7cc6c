import { PasscodeAuthError, type PasscodeAuthErrorCode } from '../index'

/**
 * The exit codes of `passcode-auth`, the same for every subcommand, so that scripts
 * can branch on them (documented in docs/cli.md).
 */
export const EXIT_CODES = Object.freeze({
  /** Done. */
  ok: 0,
  /** A bug or an error nobody planned for; the message says what happened. */
  unexpected: 1,
  /** The command line or the configuration is wrong: unknown flag, missing argument, bad setting, a missing or malformed key or pepper. */
  usage: 2,
  /** A rule refused the operation: invalid input, duplicate name, cap reached, forbidden… */
  refused: 3,
  /** The passcode, user passcode or partner does not exist. */
  notFound: 4,
  /** The database, the data folder or the mailer is unavailable, or its package is not installed (also: `notify` with failed sends). */
  unavailable: 5,
  /** `audit verify`: the audit trail was changed, cut or reordered. */
  broken: 6,
})

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES]

/** Codes of the CLI's own failures, next to the library's `PasscodeAuthErrorCode`s. */
export type CliErrorCode =
  | 'ERR_USAGE'
  | 'ERR_SETTING'
  | 'ERR_DATA_FOLDER'
  | 'ERR_DATABASE'
  | 'ERR_MISSING_PACKAGE'
  | 'ERR_NOT_FOUND'
  | 'ERR_DUPLICATE_PARTNER'
  | 'ERR_NOT_CONFIRMED'

const EXIT_BY_CLI_CODE: Readonly<Record<CliErrorCode, ExitCode>> = {
  ERR_USAGE: EXIT_CODES.usage,
  ERR_SETTING: EXIT_CODES.usage,
  ERR_DATA_FOLDER: EXIT_CODES.unavailable,
  ERR_DATABASE: EXIT_CODES.unavailable,
  ERR_MISSING_PACKAGE: EXIT_CODES.unavailable,
  ERR_NOT_FOUND: EXIT_CODES.notFound,
  ERR_DUPLICATE_PARTNER: EXIT_CODES.refused,
  // A person answered no to a confirmation (cli/confirm.ts): nothing changed.
  ERR_NOT_CONFIRMED: EXIT_CODES.refused,
}

const EXIT_BY_LIBRARY_CODE: Readonly<Record<PasscodeAuthErrorCode, ExitCode>> = {
  ERR_INVALID_INPUT: EXIT_CODES.refused,
  ERR_INVALID_OPTIONS: EXIT_CODES.usage,
  // A missing or malformed key, pepper or mailer is the operator's setting to fix.
  ERR_CONFIGURATION: EXIT_CODES.usage,
  ERR_FORBIDDEN: EXIT_CODES.refused,
  ERR_NOT_FOUND: EXIT_CODES.notFound,
  ERR_CAP_REACHED: EXIT_CODES.refused,
  ERR_DUPLICATE_NAME: EXIT_CODES.refused,
  ERR_REACTIVATION_REFUSED: EXIT_CODES.refused,
  ERR_ROTATION_REFUSED: EXIT_CODES.refused,
  ERR_ALREADY_GRANTED: EXIT_CODES.refused,
  ERR_STORAGE_UNAVAILABLE: EXIT_CODES.unavailable,
  ERR_STORAGE_TIMEOUT: EXIT_CODES.unavailable,
  ERR_MAILER_FAILED: EXIT_CODES.unavailable,
  ERR_NO_RECIPIENTS: EXIT_CODES.unavailable,
  ERR_PASSCODE_REFUSED: EXIT_CODES.refused,
  // SPEC §5.44: `audit list` or `audit export` met a record verification would not vouch for.
  ERR_AUDIT_BROKEN: EXIT_CODES.broken,
}

/**
 * A failure of the command itself (bad flag, bad setting, busy data folder). Its
 * message is meant for the operator as it is, and never holds a secret.
 *
 * @example
 * ```ts
 * throw new CliError('ERR_USAGE', 'passcodes create needs --account <id>')
 * ```
 */
export class CliError extends Error {
  /** What kind of failure, for `--json` output. */
  readonly code: CliErrorCode
  /** The flag or environment variable at fault, when there is one. */
  readonly setting: string | undefined

  constructor(code: CliErrorCode, message: string, options?: { setting?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'CliError'
    this.code = code
    this.setting = options?.setting
  }
}

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CliError) return EXIT_BY_CLI_CODE[error.code]
  if (error instanceof PasscodeAuthError) return EXIT_BY_LIBRARY_CODE[error.code]
  return EXIT_CODES.unexpected
}
