import { InvalidInputError, InvalidOptionsError, PasscodeAuthError } from '../index'
import { CliError, EXIT_CODES, exitCodeFor } from './exit-codes'

/** Where the command writes and what it reads from its environment; a real process or a test's capture. */
export interface CliIo {
  stdout(this: void, text: string): void
  stderr(this: void, text: string): void
  readonly env: Readonly<Record<string, string | undefined>>
  /** The folder relative paths (the data folder) are resolved against. */
  readonly cwd: string
  /** stdout is a terminal: `serve` then logs requests for a person rather than as JSON. @default false */
  readonly stdoutIsTTY?: boolean
  /**
   * stderr is a terminal: only then does `serve` show a person the demo passcode and a
   * login link there; elsewhere they go to an owner-only file. @default false
   */
  readonly stderrIsTTY?: boolean
  /**
   * Resolves, with a signal's name, when `serve` is to shut down: a test that runs
   * `serve` in its own process stops it this way. @default the process's first SIGINT or SIGTERM
   */
  readonly stopped?: Promise<NodeJS.Signals>
  /** stdin is a terminal: only then is a person asked to confirm (cli/confirm.ts). @default false */
  readonly stdinIsTTY?: boolean
  /** What `leaks report` reads its values from, and a confirmation its answer. @default process.stdin */
  readonly stdin?: AsyncIterable<string | Uint8Array>
}

/**
 * Human or `--json` output. With `--json`, stdout carries exactly one JSON document
 * (the result) or nothing (an error, written to stderr as JSON), so a script can
 * parse it; notices always go to stderr.
 */
export interface Output {
  readonly json: boolean
  /** The command's result: `human` text, or `data` as one JSON document with `--json`. */
  result(data: unknown, human: string): void
  /** Operator notices (generated secrets, warnings): stderr in both modes. */
  notice(text: string): void
  /** Progress of a long-running command (serve): stdout for humans, left out with `--json`. */
  info(text: string): void
  /** Reports the error that ended the command and returns its exit code. */
  fail(error: unknown, commandPath?: string): number
}

/** The message of an error, safe to show: the library's and the CLI's own messages never hold secrets. */
function describe(error: unknown): { code: string; message: string; setting?: string; field?: string } {
  if (error instanceof CliError) return { code: error.code, message: error.message, ...(error.setting && { setting: error.setting }) }
  if (error instanceof InvalidInputError) return { code: error.code, message: error.message, field: error.field }
  if (error instanceof InvalidOptionsError) return { code: error.code, message: error.message }
  if (error instanceof PasscodeAuthError) return { code: error.code, message: error.message }
  return { code: 'ERR_UNEXPECTED', message: error instanceof Error ? error.message : String(error) }
}

/** Creates the output of one command run. */
export function createOutput(io: CliIo, json: boolean): Output {
  return {
    json,
    result(data, human) {
      if (json) io.stdout(`${JSON.stringify(data, null, 2)}\n`)
      else if (human !== '') io.stdout(human.endsWith('\n') ? human : `${human}\n`)
    },
    notice(text) {
      io.stderr(`${text}\n`)
    },
    info(text) {
      if (!json) io.stdout(`${text}\n`)
    },
    fail(error, commandPath) {
      const exitCode = exitCodeFor(error)
      const described = describe(error)
      if (json) {
        io.stderr(`${JSON.stringify({ error: { ...described, exitCode } })}\n`)
      } else {
        io.stderr(`error: ${described.message}\n`)
        if (exitCode === EXIT_CODES.usage && commandPath !== undefined) {
          io.stderr(`Run "passcode-auth ${commandPath}${commandPath === '' ? '' : ' '}--help" for usage.\n`)
        }
        if (exitCode === EXIT_CODES.unexpected && error instanceof Error && io.env.PASSCODE_AUTH_DEBUG) {
          io.stderr(`${error.stack ?? ''}\n`)
        }
      }
      return exitCode
    },
  }
}

/** Lays out rows under headers in aligned columns. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...rows.map(line)].join('\n')
}

/** `2025-03-01 14:05 UTC`: instants in UTC, as the service's rules count them. */
export function formatInstant(date: Date | null): string {
  if (date === null) return 'never'
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}
