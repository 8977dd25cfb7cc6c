import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

/**
 * The package as `npm publish` would upload it, made the way a new contributor makes
 * it: the repository's files (tracked, plus new ones not ignored, so uncommitted work
 * is included) are copied into a scratch folder with no `dist/`, beside the
 * repository's `node_modules` (the state right after `npm ci`), and `npm pack` runs
 * there, so the build must come from the `prepack` script. The repository's own
 * `dist/` is never touched.
 */

const run = promisify(execFile)

export const repositoryRoot = path.resolve(import.meta.dirname, '../..')

/** One entry of the tarball. */
export interface TarballEntry {
  /** Path inside the package, without tar's `package/` prefix. */
  readonly path: string
  /** Unix permission bits, e.g. 0o755. */
  readonly mode: number
}

/** A packed tarball and what it holds. */
export interface PackedTarball {
  /** Absolute path of the `.tgz`. */
  readonly file: string
  readonly entries: readonly TarballEntry[]
  /** The package.json inside the tarball. */
  readonly manifest: Record<string, unknown>
  /** The scratch folder holding the copy and the tarball; {@link removePackedTarball} deletes it. */
  readonly scratch: string
}

/** The environment of a child npm without the settings the parent `npm test` passes down. */
export function cleanNpmEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(?:config|lifecycle|package|command|execpath|node_execpath)/i.test(key)) continue
    env[key] = value
  }
  return { ...env, ...extra }
}

/** Files a fresh clone of the working tree would hold (deleted ones left out). */
async function workingTreeFiles(): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repositoryRoot,
    maxBuffer: 64 * 1024 * 1024,
  })
  return stdout.split('\0').filter((file) => file !== '' && existsSync(path.join(repositoryRoot, file)))
}

/** Packs the repository from a dist-less copy (allow a few minutes: `prepack` builds). */
export async function packRepository(): Promise<PackedTarball> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'passcode-auth-pack-'))
  const copy = path.join(scratch, 'repository')
  for (const file of await workingTreeFiles()) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true })
    cpSync(path.join(repositoryRoot, file), path.join(copy, file))
  }
  symlinkSync(path.join(repositoryRoot, 'node_modules'), path.join(copy, 'node_modules'), 'dir')
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
    cwd: copy,
    env: cleanNpmEnvironment(),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000,
  })
  // npm prints the prepack build's output before the JSON report.
  const report = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[\n') + 1)) as [{ filename: string }]
  const file = path.join(scratch, report[0].filename)
  const { stdout: listing } = await run('tar', ['-tvzf', file], { maxBuffer: 64 * 1024 * 1024 })
  const entries = listing
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [permissions = '', ...rest] = line.trim().split(/\s+/)
      const name = rest.at(-1) ?? ''
      return { path: name.replace(/^package\//, ''), mode: permissionBits(permissions) }
    })
  await run('tar', ['-xzf', file, '-C', scratch, 'package/package.json'])
  const manifest = JSON.parse(readFileSync(path.join(scratch, 'package', 'package.json'), 'utf8')) as Record<string, unknown>
  return { file, entries, manifest, scratch }
}

/** Deletes the scratch folder of {@link packRepository}. */
export function removePackedTarball(tarball: PackedTarball | undefined): void {
  if (tarball !== undefined) rmSync(tarball.scratch, { recursive: true, force: true })
}

/** `-rwxr-xr-x` → 0o755. */
function permissionBits(permissions: string): number {
  return [...permissions.slice(1, 10)].reduce((bits, character) => (bits << 1) | (character === '-' ? 0 : 1), 0)
}
