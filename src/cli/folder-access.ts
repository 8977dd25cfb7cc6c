import { setTimeout as sleep } from 'node:timers/promises'
import { forwardToServe, type ForwardedResult, type ForwardingCaller } from './control-socket'
import { dataFolderPaths, prepareDataFolder, tryLockDataFolder, type FolderLock } from './data-folder'
import { CliError } from './exit-codes'
import type { Output } from './output'

const POLL_MS = 200

/**
 * Gets a command onto an embedded data folder: the folder's lock for this process, or,
 * when `serve` runs on it, that server's answer to the command. Waits while another
 * short command holds the folder (or `serve` is still starting), up to `waitMs`.
 */
export async function accessDataFolder(
  dir: string,
  command: string,
  argv: readonly string[],
  output: Output,
  waitMs: number,
  caller: ForwardingCaller,
): Promise<{ lock: FolderLock } | { forwarded: ForwardedResult }> {
  prepareDataFolder(dir)
  const { socket } = dataFolderPaths(dir)
  const deadline = Date.now() + waitMs
  let told = false
  for (;;) {
    if (command !== 'serve') {
      const forwarded = await forwardToServe(socket, argv, caller)
      if (forwarded !== undefined) return { forwarded }
    }
    const lock = tryLockDataFolder(dir, command)
    if (!('heldBy' in lock)) return { lock }
    const { heldBy } = lock
    if (command === 'serve' && heldBy.command === 'serve') {
      throw new CliError(
        'ERR_DATA_FOLDER',
        `passcode-auth serve is already running on ${dir} (pid ${heldBy.pid}); stop it first or use another --data-dir`,
      )
    }
    if (Date.now() > deadline) {
      throw new CliError(
        'ERR_DATA_FOLDER',
        `The data folder ${dir} is in use by process ${heldBy.pid} (${heldBy.command}); the embedded store allows one process at a time (use DATABASE_URL for many)`,
      )
    }
    if (!told) {
      output.notice(`Waiting for the data folder, in use by process ${heldBy.pid} (${heldBy.command})…`)
      told = true
    }
    await sleep(POLL_MS)
  }
}
