import { cliEnv, root, type CliOptions, type CliRun, type ServeUnderTest } from '../helpers/cli-command'

/**
 * The `passcode-auth` command run in the test process (`runCli`), for the tests of what
 * the command does where its process is not what is tested. The command makes the files
 * of its process owner-only (umask 077); here that lasts while a command runs, and the
 * umask the test process had comes back when the last one ends, so that a file using
 * these shares its worker with any other (test/helpers/umask-unchanged.ts checks it after
 * every file). The command as a child process, the servers and the data folders are in
 * test/helpers/cli-command.ts, re-exported here.
 */

export * from '../helpers/cli-command'

/** `runCli`, loaded into this process (a vitest worker, started with test/helpers/node-flags.ts). */
async function inProcessCommand(): Promise<typeof import('../../src/cli/run-cli').runCli> {
  return (await import('../../src/cli/run-cli')).runCli
}

/** In-process commands running now, and the umask this process had before the first of them. */
let running = 0
let umaskBefore = 0

/**
 * Starts an in-process command (`start` calls `runCli`) and resolves its exit code; once
 * no other is running, the umask goes back to what it was before any ran.
 */
function restoringUmask(start: () => Promise<number>): Promise<number> {
  if (running++ === 0) umaskBefore = process.umask()
  const restore = () => {
    if (--running === 0) process.umask(umaskBefore)
  }
  // runCli is async: it never throws before returning its promise.
  return start().finally(restore)
}

/** The umask of this process now, in octal ('22', '77'), without changing it. */
export function currentUmask(): string {
  return process.umask().toString(8)
}

/**
 * Runs `passcode-auth <args>` to completion in this process: `runCli`, the whole
 * command but the few lines of src/cli/index.ts that bind it to a process, with its
 * output captured and a clean environment. Starting a process (and the command's
 * modules and PGlite's WebAssembly in it) costs about a second of CPU per command;
 * use {@link cliProcess} where the process boundary itself is under test.
 */
export async function cli(
  args: readonly string[],
  options: CliOptions & { stdin?: string; stdinIsTTY?: boolean; stderrIsTTY?: boolean } = {},
): Promise<CliRun> {
  const runCli = await inProcessCommand()
  let stdout = ''
  let stderr = ''
  const code = await restoringUmask(() =>
    runCli(args, {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      env: cliEnv(options),
      cwd: root,
      ...(options.stdinIsTTY !== undefined && { stdinIsTTY: options.stdinIsTTY }),
      ...(options.stderrIsTTY !== undefined && { stderrIsTTY: options.stderrIsTTY }),
      ...(options.stdin !== undefined && {
        stdin: (async function* () {
          yield options.stdin!
        })(),
      }),
    }),
  )
  return { code, stdout, stderr }
}

/**
 * `passcode-auth serve` on a data folder (or with `env`'s DATABASE_URL), on a free port,
 * run by `runCli` in this process, as {@link cli} runs the other commands: for tests of
 * what the server does, where its process is not what is tested. Each such process
 * costs over a second of CPU (Node, the command's modules, PGlite's WebAssembly).
 * Resolves once it printed "Stop with Ctrl+C."; `stop` ends it as a signal would.
 */
export async function serveInProcess(dataDir: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<ServeUnderTest> {
  const runCli = await inProcessCommand()
  let stdout = ''
  let stderr = ''
  let stopWith!: (signal: NodeJS.Signals) => void
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stopWith = resolve))
  let ready!: () => void
  const listening = new Promise<void>((resolve) => (ready = resolve))
  const io = {
    stdout: (text: string) => {
      stdout += text
      if (text.includes('Stop with Ctrl+C.')) ready()
    },
    stderr: (text: string) => void (stderr += text),
    env: cliEnv({ dataDir, env }),
    cwd: root,
    stopped,
  }
  const exited = restoringUmask(() => runCli(['serve', '--port', '0', ...args], io))
  await Promise.race([
    listening,
    exited.then((code) => {
      throw new Error(`serve exited (${code}) before it was ready:\n${stdout}\n${stderr}`)
    }),
  ])
  return {
    url: /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '',
    stdout: () => stdout,
    stderr: () => stderr,
    stop(signal = 'SIGTERM') {
      stopWith(signal)
      return exited
    },
  }
}
