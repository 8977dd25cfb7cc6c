import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { buildOnce } from './build-once'

/**
 * The packages as `npm publish` would upload them, made the way a new contributor makes
 * them: the repository's files (tracked, plus new ones not ignored, so uncommitted work
 * is included; the tests, benchmarks and the tools' own files left out, see {@link NEITHER_SHIPPED_NOR_BUILT}) are copied into a scratch folder with no `dist/`, beside the
 * repository's `node_modules` (the state right after `npm ci`), and `npm pack` runs
 * there, for the library and for the partner client's workspace
 * (packages/connect-client), so each build must come from its `prepack` script. The
 * repository's own `dist/` folders are never touched.
 *
 * Packing builds the library (minutes of CPU on a busy machine), so the tarballs are
 * made once for every test file that wants them, and kept for the next run, in
 * node_modules/.cache/packed-packages/<fingerprint of the files copied>/ (see
 * {@link buildOnce}). A test reads them and never writes there: it extracts and installs
 * in a folder of its own.
 */

const run = promisify(execFile)

export const repositoryRoot = path.resolve(import.meta.dirname, '../..')

/** The partner client's workspace, a package of its own. */
export const CLIENT_WORKSPACE = 'packages/connect-client'

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
}

/** The library (`passcode-auth`) and the partner client (packages/connect-client), packed. */
export interface PackedPackages {
  readonly library: PackedTarball
  readonly client: PackedTarball
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

/**
 * Folders (ending in `/`) and files of the repository that neither package ships (no
 * entry of either "files" names them) and no build reads (`npm run build`: tsc with
 * tsconfig.build.json, then tsup with tsup.config.ts; the client's tsup command): the
 * tests and the benchmarks, the test runner's and the linter's settings, the CI script,
 * the pending changesets and the API reports. They are left out of the copy that is
 * packed, and so of its fingerprint: editing a test, a changeset or the suite's settings
 * reuses the tarballs of the same sources instead of building both packages again
 * (about 45 CPU-s).
 */
const NEITHER_SHIPPED_NOR_BUILT = ['test/', 'bench/', '.changeset/', '.ci/', 'api-reports/', 'vitest.config.ts', 'eslint.config.mjs']

/** Whether `file` (a path in the repository, or an entry of "files") is one of {@link NEITHER_SHIPPED_NOR_BUILT} or inside one. */
const neitherShippedNorBuilt = (file: string): boolean =>
  NEITHER_SHIPPED_NOR_BUILT.some((entry) => (entry.endsWith('/') ? `${file}/`.startsWith(entry) : file === entry))

/** Files a fresh clone of the working tree would hold (deleted ones left out), but for {@link NEITHER_SHIPPED_NOR_BUILT}. */
async function workingTreeFiles(): Promise<string[]> {
  const manifests = ['package.json', `${CLIENT_WORKSPACE}/package.json`]
  for (const manifest of manifests) {
    const { files = [] } = JSON.parse(readFileSync(path.join(repositoryRoot, manifest), 'utf8')) as { files?: string[] }
    const shipped = files.filter((entry) => neitherShippedNorBuilt(entry.replace(/^\.\//, '').replace(/\/$/, '')))
    if (shipped.length > 0) throw new Error(`${manifest} ships ${shipped.join(', ')}: take it out of NEITHER_SHIPPED_NOR_BUILT`)
  }
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repositoryRoot,
    maxBuffer: 64 * 1024 * 1024,
  })
  return stdout
    .split('\0')
    .filter((file) => file !== '' && !neitherShippedNorBuilt(file))
    .filter((file) => existsSync(path.join(repositoryRoot, file)))
    .sort()
}

let packed: Promise<PackedPackages> | undefined

/**
 * The packed library and partner client of the working tree as it is, made by the first
 * test process that asks (allow minutes: `prepack` builds), read from the cache after.
 */
export function packedPackages(): Promise<PackedPackages> {
  packed ??= (async () => {
    const files = await workingTreeFiles()
    const fingerprint = createHash('sha256')
    for (const file of files)
      fingerprint
        .update(`${file}\0`)
        .update(readFileSync(path.join(repositoryRoot, file)))
        .update('\0')
    const cache = path.join(repositoryRoot, 'node_modules/.cache/packed-packages')
    const target = path.join(cache, fingerprint.digest('hex').slice(0, 16))
    mkdirSync(cache, { recursive: true })
    await buildOnce(target, (building) => packInto(building, files, cache), { maxMs: 600_000 })
    const { library, client } = JSON.parse(readFileSync(path.join(target, 'packed.json'), 'utf8')) as PackedPackages
    return { library: { ...library, file: path.join(target, library.file) }, client: { ...client, file: path.join(target, client.file) } }
  })()
  return packed
}

/** Copies `files` into a scratch folder, packs both packages there into `folder`, and describes them in `folder/packed.json`. */
async function packInto(folder: string, files: readonly string[], cache: string): Promise<void> {
  mkdirSync(folder)
  const scratch = mkdtempSync(path.join(tmpdir(), 'passcode-auth-pack-'))
  try {
    const copy = path.join(scratch, 'repository')
    for (const file of files) {
      mkdirSync(path.dirname(path.join(copy, file)), { recursive: true })
      cpSync(path.join(repositoryRoot, file), path.join(copy, file))
    }
    symlinkSync(path.join(repositoryRoot, 'node_modules'), path.join(copy, 'node_modules'), 'dir')
    // Side by side: each build writes only its own dist/ (the library's beside .declarations/).
    const [library, client] = await Promise.all([pack(copy, [], folder), pack(copy, ['--workspace', CLIENT_WORKSPACE], folder)])
    writeFileSync(path.join(folder, 'packed.json'), JSON.stringify({ library, client }))
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  // Tarballs of older working trees, once a day old, are not wanted again.
  for (const entry of readdirSync(cache)) {
    const old = path.join(cache, entry)
    if (old !== folder && Date.now() - statSync(old).mtimeMs > 86_400_000) rmSync(old, { recursive: true, force: true })
  }
}

/** `npm pack` in `copy` (with `args`, for a workspace) into `destination`; the file is named relative to it. */
async function pack(copy: string, args: readonly string[], destination: string): Promise<PackedTarball> {
  const { stdout } = await run('npm', ['pack', ...args, '--json', '--pack-destination', destination], {
    cwd: copy,
    env: cleanNpmEnvironment(),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000,
  })
  // npm prints the prepack build's output before the JSON report.
  const report = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[\n') + 1)) as [{ filename: string }]
  const file = path.join(destination, report[0].filename)
  const { stdout: listing } = await run('tar', ['-tvzf', file], { maxBuffer: 64 * 1024 * 1024 })
  const entries = listing
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [permissions = '', ...rest] = line.trim().split(/\s+/)
      const name = rest.at(-1) ?? ''
      return { path: name.replace(/^package\//, ''), mode: permissionBits(permissions) }
    })
  const { stdout: manifest } = await run('tar', ['-xOzf', file, 'package/package.json'], { maxBuffer: 64 * 1024 * 1024 })
  return { file: report[0].filename, entries, manifest: JSON.parse(manifest) as Record<string, unknown> }
}

/**
 * Extracts `paths` of a tarball (all of it when none) into `folder`, under `package/`,
 * and returns `folder/package`.
 */
export async function extractTarball(tarball: PackedTarball, folder: string, paths: readonly string[] = []): Promise<string> {
  await run('tar', ['-xzf', tarball.file, '-C', folder, ...paths.map((file) => `package/${file}`)], { maxBuffer: 64 * 1024 * 1024 })
  return path.join(folder, 'package')
}

/** `-rwxr-xr-x` → 0o755. */
function permissionBits(permissions: string): number {
  return [...permissions.slice(1, 10)].reduce((bits, character) => (bits << 1) | (character === '-' ? 0 : 1), 0)
}
