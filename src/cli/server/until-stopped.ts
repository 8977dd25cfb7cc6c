import { EXIT_CODES } from '../exit-codes'

/** The signals that stop `serve` cleanly (SPEC §5.36). */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP']

/** How often `serve`, started by npm, checks that the process npm started it through is still there. */
const PARENT_CHECK_MS = 250

/** Why `serve` stops: a signal, or the end of the npm process that started it. */
export type StopReason = NodeJS.Signals | 'npm exited'

/**
 * Resolves at the first SIGTERM, SIGINT or SIGHUP, or, when npm started this process,
 * once npm is gone. A second signal ends the process at once with a non-zero code (the
 * shutdown is not waited for), except a SIGINT within a second of a first SIGINT: under
 * `npm start`, Ctrl+C reaches this process both from the terminal and relayed by npm.
 *
 * npm (`npx passcode-auth serve`, `npm start`, `npm exec`) runs the command through
 * `sh -c`. Sent SIGTERM, npm 11 passes it to that shell only, which ends without passing
 * it on, and npm exits: the server would go on running, a child of init, holding its
 * port and data folder. So when npm's environment says it started this process
 * (`npm_lifecycle_event`), a change of parent process means npm's shell is gone, and the
 * server stops as on SIGTERM. Started any other way (`node`, a container's entry point,
 * systemd, `nohup`), the parent is not watched.
 *
 * @example
 * ```ts
 * const reason = await untilStopped(io.env) // 'SIGTERM', or 'npm exited'
 * ```
 */
export function untilStopped(env: Readonly<Record<string, string | undefined>>): Promise<StopReason> {
  return new Promise((resolve) => {
    const parent = process.ppid
    const watch =
      env.npm_lifecycle_event === undefined ? undefined : setInterval(() => process.ppid !== parent && stop('npm exited'), PARENT_CHECK_MS)
    // The watch alone never keeps the process alive: the server does, while it listens.
    watch?.unref()
    const first = (signal: NodeJS.Signals) => stop(signal)
    function stop(reason: StopReason): void {
      const at = Date.now()
      clearInterval(watch)
      for (const name of STOP_SIGNALS) process.off(name, first)
      const again = (next: NodeJS.Signals) => {
        if (next === 'SIGINT' && reason === 'SIGINT' && Date.now() - at <= 1_000) return
        process.stderr.write(`${next} again: exiting without waiting for the shutdown\n`)
        process.exit(EXIT_CODES.unexpected)
      }
      for (const name of STOP_SIGNALS) process.on(name, again)
      resolve(reason)
    }
    for (const name of STOP_SIGNALS) process.on(name, first)
  })
}
