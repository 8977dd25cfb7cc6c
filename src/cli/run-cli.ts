import { version } from '../../package.json'
import { checkArguments, parseCommandArgs, type CommandContext, type CommandSpec } from './command'
import { COMMANDS } from './commands/index'
import { mailConfig, serverConfig, storageConfig, type Flags, type MailConfig, type RateLimitConfig, type StorageConfig } from './config'
import type { ForwardedResult, ForwardingCaller } from './control-socket'
import { CliError, EXIT_CODES } from './exit-codes'
import { accessDataFolder } from './folder-access'
import { commandHelp, groupHelp, topHelp } from './help'
import { createCliMailer } from './mailers'
import { createOutput, type CliIo, type Output } from './output'
import type { Actor } from '../index'
import { actorFrom } from './actor'
import { checkRequirements } from './requirements'
import { openRuntime, type Runtime } from './runtime'

/** Set when a running `serve` executes a command that another process handed to it. */
export interface SharedRuntime {
  readonly runtime: Runtime
}

const GROUPS = [...new Set(COMMANDS.map((command) => command.path[0]!))]

/** Finds the command named by the leading words of `argv`. */
function findCommand(argv: readonly string[]): { command: CommandSpec; rest: string[] } | { group?: string; word?: string } {
  const [first, second] = argv
  const match = (words: number) => COMMANDS.find((command) => command.path.length === words && command.path.every((word, i) => argv[i] === word))
  const command = match(2) ?? match(1)
  if (command !== undefined) return { command, rest: argv.slice(command.path.length) }
  if (first !== undefined && GROUPS.includes(first)) return { group: first, ...(second !== undefined && !second.startsWith('-') && { word: second }) }
  return first === undefined || first.startsWith('-') ? {} : { word: first }
}

/** Checks what can be checked of a parsed command line without settings or a store. */
function checkCommandLine(command: CommandSpec, flags: Flags, positionals: readonly string[]): { actor: Actor } {
  checkArguments(command, flags, positionals)
  return { actor: actorFrom(flags) }
}

/**
 * Parses and checks a command line as `runCli` does before running it; throws the
 * `CliError` it would report. Lets docs tests check every documented command line.
 */
export function parseCommandLine(argv: readonly string[]): { command: CommandSpec; flags: Flags; positionals: string[]; actor: Actor } {
  const found = findCommand(argv)
  if (!('command' in found)) throw new CliError('ERR_USAGE', `no command in "${argv.join(' ')}"`)
  const { flags, positionals } = parseCommandArgs(found.command, found.rest)
  return { command: found.command, flags, positionals, ...checkCommandLine(found.command, flags, positionals) }
}

/** Captures a run's output, for a command forwarded to this `serve`. */
export async function runCaptured(
  argv: readonly string[],
  env: CliIo['env'],
  cwd: string,
  shared: SharedRuntime,
  caller: ForwardingCaller,
): Promise<ForwardedResult> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env, cwd, stderrIsTTY: caller.stderrIsTTY }
  const exitCode = await runCli(argv, io, shared)
  return { stdout, stderr, exitCode }
}

/**
 * Runs the `passcode-auth` command line and resolves its exit code; never throws.
 * Everything it prints goes through `io`, so tests and the `serve` control socket can
 * run it in process.
 *
 * @example
 * ```ts
 * const code = await runCli(['passcodes', 'list', '--account', 'acc_1', '--json'], io)
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo, shared?: SharedRuntime): Promise<number> {
  const output = createOutput(io, argv.includes('--json'))
  const [first] = argv
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const target = first === 'help' ? findCommand(argv.slice(1)) : {}
    if ('command' in target) io.stdout(commandHelp(target.command))
    else if ('group' in target && target.group !== undefined) io.stdout(groupHelp(target.group, COMMANDS))
    else io.stdout(topHelp(COMMANDS, version))
    return first === undefined ? EXIT_CODES.usage : EXIT_CODES.ok
  }
  if (first === '--version' || first === '-v') {
    io.stdout(`${version}\n`)
    return EXIT_CODES.ok
  }

  const found = findCommand(argv)
  if (!('command' in found)) {
    if (found.group !== undefined && found.word === undefined && (argv.includes('--help') || argv.includes('-h'))) {
      io.stdout(groupHelp(found.group, COMMANDS))
      return EXIT_CODES.ok
    }
    const subcommands = COMMANDS.filter((c) => c.path[0] === found.group).map((c) => c.path[1])
    const message =
      found.group === undefined
        ? `unknown command "${found.word ?? first}"; commands: ${GROUPS.join(', ')}`
        : found.word === undefined
          ? `"${found.group}" needs a subcommand: ${subcommands.join(', ')}`
          : `unknown subcommand "${found.group} ${found.word}"; subcommands: ${subcommands.join(', ')}`
    return output.fail(new CliError('ERR_USAGE', message), found.group ?? '')
  }

  const { command, rest } = found
  const path = command.path.join(' ')
  let runtime: Promise<Runtime> | undefined
  let release: (() => void) | undefined
  try {
    const { flags, positionals } = parseCommandArgs(command, rest)
    if (flags.help === true) {
      io.stdout(commandHelp(command))
      return EXIT_CODES.ok
    }
    const { actor } = checkCommandLine(command, flags, positionals)
    const usesStorage = command.groups.includes('storage')
    // Settings are checked before anything is opened or waited for.
    const storage = usesStorage && shared === undefined ? storageConfig(io, flags) : undefined
    const mail = command.groups.includes('mail') && shared === undefined ? mailConfig(io, flags) : undefined
    const rateLimit = command.groups.includes('server') ? serverConfig(io, flags).rateLimit : false
    // Every package the settings call for is loaded before anything is created or written.
    await checkRequirements(storage, mail)

    if (storage?.kind === 'embedded') {
      const access = await accessDataFolder(storage.dataDir, path, argv, output, storage.lockWaitMs, { stderrIsTTY: io.stderrIsTTY === true })
      if ('forwarded' in access) {
        io.stdout(access.forwarded.stdout)
        io.stderr(access.forwarded.stderr)
        return access.forwarded.exitCode
      }
      release = () => access.lock.release()
    }

    const context: CommandContext = {
      io,
      output,
      flags,
      positionals,
      actor,
      forwarded: shared !== undefined,
      execute: (forwardedArgv, shared, caller) => runCaptured(forwardedArgv, io.env, io.cwd, { runtime: shared }, caller),
      runtime(options) {
        if (shared !== undefined) return Promise.resolve(shared.runtime)
        runtime ??= open(storage!, mail, output, io, { migrate: options?.migrate ?? true, listen: command.path[0] === 'serve', rateLimit })
        return runtime
      },
    }
    return (await command.run(context)) ?? EXIT_CODES.ok
  } catch (error) {
    return output.fail(error, path)
  } finally {
    if (runtime !== undefined) await runtime.then((opened) => opened.close()).catch(() => undefined)
    release?.()
  }
}

async function open(
  storage: StorageConfig,
  mail: MailConfig | undefined,
  output: Output,
  io: CliIo,
  options: { migrate: boolean; listen: boolean; rateLimit: RateLimitConfig },
): Promise<Runtime> {
  // Printed emails go to stderr with --json, so that stdout stays one JSON document.
  const mailer = mail === undefined ? undefined : await createCliMailer(mail, output.json ? io.stderr : io.stdout)
  return openRuntime(storage, {
    ...options,
    output,
    ...(mailer !== undefined && { mailer, recipients: mail!.to }),
  })
}
