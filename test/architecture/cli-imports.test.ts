import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { entries } from '../../tsup.config'
import { ts } from '../helpers/typescript'

/**
 * The command uses the package as a host would (issue 31): a file under src/cli/
 * imports only the package's entry points (the files of `entries` in tsup.config.ts:
 * `passcode-auth`, `passcode-auth/postgres`, `passcode-auth/dashboard`, …), files of its
 * own under src/cli/, and packages. Importing an entry's exported type is fine too: it is
 * an import of the entry file. So is `package.json`, for the version the command prints.
 * Anything else it needs either becomes public API of an entry (with TSDoc) or moves
 * into src/cli/.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CLI = join(ROOT, 'src', 'cli')

const ENTRY_FILES = new Set(Object.values(entries).map((file) => resolve(ROOT, file)))
const PACKAGE_JSON = resolve(ROOT, 'package.json')

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** The file a relative specifier names (`./x`, `./x.js`, `./folder` → its index.ts, `../package.json`). */
function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''))
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate)) ?? base
}

/** Whether a file of src/cli may import `target`. */
const allowed = (target: string): boolean => target.startsWith(CLI + sep) || ENTRY_FILES.has(target) || target === PACKAGE_JSON

/** Every relative import in `text` (a file at `file`) that the rule refuses, as `file → specifier`. */
function violationsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true)
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.') && !allowed(resolveRelative(file, specifier)))
    .map((specifier) => `${relative(ROOT, file)} → ${specifier}`)
}

describe('src/cli imports the package only through its entry points', () => {
  it('every file under src/cli imports entry files, src/cli files, package.json or packages', () => {
    const violations = sourceFiles(CLI).flatMap((file) => violationsOf(file, readFileSync(file, 'utf8')))
    expect(violations).toEqual([])
  })

  it('refuses an internal file, type-only and dynamic imports included, and accepts entries', () => {
    const file = join(CLI, 'server', '__fixture__.ts')
    const text = [
      "import type { Actor } from '../../core/entities'",
      "import { settleWithin } from '../../service/deadline'",
      "const a = await import('../../http/authenticate-request')",
      "import { createPasscodeAuth, type Principal } from '../../index'",
      "import { nodeDashboard } from '../../dashboard/index'",
      "import { postgresStore } from '../../stores/postgres'",
      "import { version } from '../../../package.json'",
      "import { sendJson } from './route'",
      "import { z } from 'zod'",
    ].join('\n')
    expect(violationsOf(file, text)).toEqual([
      `${join('src', 'cli', 'server', '__fixture__.ts')} → ../../core/entities`,
      `${join('src', 'cli', 'server', '__fixture__.ts')} → ../../service/deadline`,
      `${join('src', 'cli', 'server', '__fixture__.ts')} → ../../http/authenticate-request`,
    ])
  })
})
