import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
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
  return showIn(io, dataDir === undefined ? undefined : dataFolderPaths(dataDir).shown, lines)
}

/**
 * {@link showToPerson} for a one-time login link that `dashboard link` made (SPEC §5.35):
 * on a terminal's stderr, else in the data folder's `link.txt` (mode 0600), or, on
 * PostgreSQL with no data folder, in `link.txt` of a new folder of the system's temporary
 * folder that only this user can open. Never on stdout: the caller prints where it is.
 *
 * @example
 * ```ts
 * const where = showLoginLink(io, runtime.storage === 'embedded' ? runtime.location : undefined, url)
 * if (where.on === 'file') output.result({ file: where.file }, `The login link is in ${where.file}`)
 * ```
 */
export function showLoginLink(io: CliIo, dataDir: string | undefined, url: string): ShownWhere {
  if (io.stderrIsTTY === true) return showIn(io, undefined, [url])
  const file = dataDir === undefined ? path.join(mkdtempSync(path.join(tmpdir(), 'passcode-auth-link-')), 'link.txt') : dataFolderPaths(dataDir).link
  return showIn(io, file, [url])
}

function showIn(io: CliIo, file: string | undefined, lines: readonly string[]): ShownWhere {
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
