import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { CliError } from './exit-codes'

const checked = process.platform !== 'win32' && typeof process.getuid === 'function'

/**
 * Refuses a folder that another local user could write to, or that belongs to another
 * user: whoever can write to the data folder or the database can move a passcode to
 * another account, un-revoke one, extend an expiry or replace the control socket.
 * Does nothing on Windows, which has no such modes.
 *
 * @param folder - an existing folder
 * @param what - how the operator calls it, for the message ("data folder", "database folder")
 */
export function assertPrivateFolder(folder: string, what: string): void {
  if (!checked) return
  const stats = statSync(folder)
  const uid = process.getuid!()
  if (stats.uid !== uid) {
    throw new CliError(
      'ERR_DATA_FOLDER',
      `The ${what} ${folder} belongs to another user (uid ${stats.uid}, this process runs as uid ${uid}), who could change the passcodes in it. ` +
        `Run passcode-auth as its owner, or make it yours: chown -R ${uid} ${folder}`,
      { setting: 'PASSCODE_AUTH_DATA_DIR' },
    )
  }
  if ((stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0')
    throw new CliError(
      'ERR_DATA_FOLDER',
      `The ${what} ${folder} can be written by other users (mode ${mode}), who could change the passcodes in it. ` +
        `Make it private to you: chmod -R go-rwx ${folder}`,
      { setting: 'PASSCODE_AUTH_DATA_DIR' },
    )
  }
}

/**
 * Makes every folder and file under `folder` owner-only (folders 0700, files without
 * group or world bits), whatever the umask was and whatever modes a tool chose: PGlite
 * writes the files of a new database with mode 0666. Symbolic links are left alone.
 */
export function restrictTree(folder: string): void {
  if (!checked) return
  chmodSync(folder, 0o700)
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name)
    if (entry.isDirectory()) restrictTree(file)
    else if (entry.isFile()) {
      const mode = lstatSync(file).mode & 0o777
      if ((mode & 0o077) !== 0) chmodSync(file, mode & 0o700)
    }
  }
}

/**
 * From now on, files and folders this process creates are owner-only (umask 077). The
 * CLI's process is its own; a library never does this to its host.
 */
export function createOwnerOnly(): void {
  if (checked) process.umask(0o077)
}
