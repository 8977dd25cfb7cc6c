import { parseArgs } from 'node:util'
import type { Actor } from '../index'
import type { Flags } from './config'
import { CliError } from './exit-codes'
import type { ForwardedResult, ForwardingCaller } from './control-socket'
import type { CliIo, Output } from './output'
import type { Runtime } from './runtime'

/** One flag of a command. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean'
  /** Placeholder shown in help, for example `<days|forever>`. */
  readonly value?: string
  readonly description: string
  readonly required?: boolean
  /** May be given several times; the value is then every one, in order. */
  readonly multiple?: boolean
}

/** Flags shared by several commands, shown under their own heading in help. */
export type OptionGroup = 'storage' | 'actor' | 'mail' | 'server'

/** What a subcommand gets when it runs. */
export interface CommandContext {
  readonly io: CliIo
  readonly output: Output
  readonly flags: Flags
  /** The positional arguments after the command's own words, in order. */
  readonly positionals: readonly string[]
  /** Who the operation is done as: `--as` (default `operator`) with `--role` (default `admin`). */
  readonly actor: Actor
  /** Opens the store once per run (migrating it first, unless told not to). */
  runtime(options?: { migrate?: boolean }): Promise<Runtime>
  /** True when a running `serve` executes this command for another process. */
  readonly forwarded: boolean
  /** Runs another command line on `runtime`, capturing its output (how `serve` runs forwarded commands). */
  execute(argv: readonly string[], runtime: Runtime, caller: ForwardingCaller): Promise<ForwardedResult>
}

/** A subcommand: its words, its help and what it does. */
export interface CommandSpec {
  /** The words that name it: `['passcodes', 'create']`. */
  readonly path: readonly string[]
  readonly summary: string
  readonly positionals?: readonly { readonly name: string; readonly description: string }[]
  readonly options?: Readonly<Record<string, OptionSpec>>
  readonly groups: readonly OptionGroup[]
  readonly examples?: readonly string[]
  /** Checks the command's own flag values before any store is opened; throws a usage error. */
  check?(flags: Flags, positionals: readonly string[]): void
  /** Resolves the exit code (0 unless the command says otherwise). */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a command that ends normally returns nothing
  run(context: CommandContext): Promise<number | void>
}

/** The flags of each group; docs/cli.md shows the same. */
export const GROUP_OPTIONS: Readonly<Record<OptionGroup | 'output', Readonly<Record<string, OptionSpec>>>> = {
  storage: {
    'data-dir': { type: 'string', value: '<path>', description: 'embedded data folder (env PASSCODE_AUTH_DATA_DIR; default .data/passcode-auth)' },
    'database-url': { type: 'string', value: '<url>', description: 'use this PostgreSQL instead of the data folder (env DATABASE_URL)' },
    'db-schema': {
      type: 'string',
      value: '<name>',
      description: 'PostgreSQL schema of the tables (env PASSCODE_AUTH_DB_SCHEMA; default passcode_auth)',
    },
  },
  actor: {
    as: { type: 'string', value: '<userId>', description: 'the user the operation is done as (default operator)' },
    role: { type: 'string', value: '<admin|member>', description: "that user's role (default admin)" },
    'user-settings': { type: 'boolean', description: 'that member has write access to User Settings' },
  },
  mail: {
    'mail-from': { type: 'string', value: '<address>', description: 'sender of notification emails (env PASSCODE_AUTH_MAIL_FROM)' },
    'notify-to': { type: 'string', value: '<a@x,b@y>', description: 'who receives them (env PASSCODE_AUTH_NOTIFY_TO; default operator@localhost)' },
  },
  server: {
    host: { type: 'string', value: '<host>', description: 'address to listen on (env PASSCODE_AUTH_HOST; default 127.0.0.1)' },
    port: { type: 'string', value: '<port>', description: 'port to listen on, 0 for any free one (env PORT; default 3000)' },
    'notify-interval-ms': {
      type: 'string',
      value: '<ms>',
      description: 'time between notifier passes (env PASSCODE_AUTH_NOTIFY_INTERVAL_MS; default 3600000)',
    },
    'rate-limit': {
      type: 'string',
      value: '<n|off>',
      description: 'failed attempts per client address and per account in the window before 429 (env PASSCODE_AUTH_RATE_LIMIT; default 50)',
    },
    'rate-limit-window-ms': {
      type: 'string',
      value: '<ms>',
      description: "the limiter's sliding window (env PASSCODE_AUTH_RATE_LIMIT_WINDOW_MS; default 900000)",
    },
    'cors-origin': {
      type: 'string',
      value: '<origin>',
      multiple: true,
      description:
        'let pages of this origin call /v1/connect from a browser; repeat for more (env PASSCODE_AUTH_CORS_ORIGINS, comma-separated; default none)',
    },
    'leak-keys': {
      type: 'string',
      value: '<file>',
      description:
        "serve POST /v1/leaks for GitHub secret scanning reports, signed by the keys in this JSON file ([{ id, pem }] or GitHub's { public_keys } list) (env PASSCODE_AUTH_LEAK_KEYS; default off)",
    },
    'trust-proxy': {
      type: 'string',
      value: '<ranges>',
      description:
        'proxies whose X-Forwarded-For gives the client address: IP addresses, CIDR ranges or loopback, linklocal, uniquelocal, comma-separated (env PASSCODE_AUTH_TRUST_PROXY; default none: the socket address)',
    },
    'no-demo': { type: 'boolean', description: 'do not create the demo account on an empty data folder' },
    dashboard: {
      type: 'boolean',
      description: 'serve the operator dashboard at /settings (env PASSCODE_AUTH_DASHBOARD=on|off; default on only for a loopback --host)',
    },
    'no-dashboard': { type: 'boolean', description: 'do not serve it: its routes answer 404 and no login link is made' },
    'shutdown-grace': {
      type: 'string',
      value: '<s>',
      description: 'on SIGTERM, SIGINT or SIGHUP, how long requests in flight may take to finish (env PASSCODE_AUTH_SHUTDOWN_GRACE; default 10)',
    },
    'log-format': {
      type: 'string',
      value: '<text|json>',
      description:
        'the request log on stdout: one line for a person, or one JSON object per line (env PASSCODE_AUTH_LOG_FORMAT; default text on a terminal, else json)',
    },
    quiet: { type: 'boolean', description: 'do not log requests' },
  },
  output: {
    json: { type: 'boolean', description: 'print the result as one JSON document' },
    help: { type: 'boolean', description: 'show this help' },
  },
}

/** Every flag a command accepts: its own, its groups' and the output flags. */
export function allOptions(command: CommandSpec): Record<string, OptionSpec> {
  const options: Record<string, OptionSpec> = { ...command.options }
  for (const group of command.groups) Object.assign(options, GROUP_OPTIONS[group])
  return Object.assign(options, GROUP_OPTIONS.output)
}

/** Parses a command's arguments strictly: unknown, repeated or valueless flags are usage errors. */
export function parseCommandArgs(command: CommandSpec, args: readonly string[]): { flags: Flags; positionals: string[] } {
  const options = allOptions(command)
  const name = command.path.join(' ')
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: [...args],
      options: Object.fromEntries(
        Object.entries(options).map(([flag, spec]) => [
          flag,
          { type: spec.type, ...(spec.multiple === true && { multiple: true }), ...(flag === 'help' && { short: 'h' }) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
      tokens: true,
    })
  } catch (error) {
    const code = (error as { code?: string }).code
    const flag = /'(-[^' ]+)/.exec((error as Error).message)?.[1] ?? 'a flag'
    const message =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `unknown option ${flag} for "${name}"`
        : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && (error as Error).message.includes('does not take an argument')
          ? `${flag} is a switch and takes no value`
          : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
            ? `${flag} needs a value (write --flag=-value for a value that starts with "-")`
            : code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
              ? `unexpected argument for "${name}"`
              : (error as Error).message
    throw new CliError('ERR_USAGE', message)
  }
  const seen = new Set<string>()
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue
    if (seen.has(token.name) && options[token.name]?.multiple !== true) throw new CliError('ERR_USAGE', `--${token.name} is given more than once`)
    seen.add(token.name)
  }
  return { flags: parsed.values as Flags, positionals: parsed.positionals }
}

/** Checks required flags and the number of positional arguments (after `--help` had its chance). */
export function checkArguments(command: CommandSpec, flags: Flags, positionals: readonly string[]): void {
  checkCounts(command, flags, positionals)
  command.check?.(flags, positionals)
}

function checkCounts(command: CommandSpec, flags: Flags, positionals: readonly string[]): void {
  const expected = command.positionals ?? []
  if (positionals.length < expected.length) {
    throw new CliError(
      'ERR_USAGE',
      `"${command.path.join(' ')}" needs ${expected
        .slice(positionals.length)
        .map((p) => `<${p.name}>`)
        .join(' ')}`,
    )
  }
  if (positionals.length > expected.length) {
    throw new CliError('ERR_USAGE', `unexpected argument "${positionals[expected.length]}" for "${command.path.join(' ')}"`)
  }
  for (const [flag, spec] of Object.entries(command.options ?? {})) {
    if (spec.required && (flags[flag] === undefined || flags[flag] === '')) {
      throw new CliError('ERR_USAGE', `"${command.path.join(' ')}" needs --${flag} ${spec.value ?? ''}`.trimEnd())
    }
  }
}
