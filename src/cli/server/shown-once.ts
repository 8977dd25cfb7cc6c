import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { dataFolderPaths } from '../data-folder'
import type { CliIo } from '../output'

/** Where {@link showToPerson} put what it was given. */
export type ShownWhere = { readonly on: 'terminal' } | { readonly on: 'file'; readonly file: string } | { readonly on: 'nowhere' }

/**
 * Shows a person what only a person may see (the demo passcode's `curl` line, a
 * one-time login link; SPEC §5.35): on stderr when stderr is a terminal, since a
 * terminal is read and not collected. Anywhere else (a container, a pipe, a service
 * manager) stdout and stderr end up in a log pipeline, so the lines go to `shown.txt`
 * in the data folder (mode 0600, replaced at each start), and the caller prints its
 * path; on PostgreSQL, with no data folder, nowhere. Nothing to show removes the file
 * an earlier start left.
 *
 * @example
 * ```ts
 * const where = showToPerson(io, runtime.storage === 'embedded' ? runtime.location : undefined, ['Dashboard:', `  ${url}`])
 * if (where.on === 'file') output.notice(`The login link is in ${where.file}`)
 * ```
 */
export function showToPerson(io: CliIo, dataDir: string | undefined, lines: readonly string[]): ShownWhere {
  const file = dataDir === undefined ? undefined : dataFolderPaths(dataDir).shown
  if (lines.length === 0) {
    if (file !== undefined) rmSync(file, { force: true })
    return { on: 'nowhere' }
  }
  const text = `${lines.join('\n')}\n`
  if (io.stderrIsTTY === true) {
    io.stderr(text)
    return { on: 'terminal' }
  }
  if (file === undefined) return { on: 'nowhere' }
  // Written aside and renamed: a reader never sees half of it, and the mode holds from the first byte.
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, text, { mode: 0o600 })
  renameSync(temporary, file)
  return { on: 'file', file }
}
