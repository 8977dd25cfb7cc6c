import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { buildOnce } from '../helpers/build-once'

/**
 * The previous version of the package, for the mixed-version test (SPEC §5.54): built
 * from this repository's own git history, never from a registry. The ref is the newest
 * release tag (`passcode-auth@x.y.z`, as `changeset publish` makes it, or `vx.y.z`) other
 * than the current version's, once a version has been tagged; until then
 * {@link PREVIOUS_COMMIT}.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The previous version while no release tag exists: the first commit with keyed audit
 * records (migration 12, a planned contract step made before any release: a version
 * without audit keys cannot append to a keyed chain) and before the pepper of a
 * rotation's previous value (migration 13), so that the test runs a version whose
 * schema the current one expands. Once the first minor is tagged,
 * the tags take over and this is no longer read (docs/releasing.md).
 */
export const PREVIOUS_COMMIT = 'c5b5d6f3b5a9236a28b4d9701185fe6e3abf1c59'

const inClone = (root: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
const git = (...args: string[]): string => inClone(ROOT, ...args)

/** Compares two `x.y.z` versions. */
const compareVersions = (a: string, b: string): number => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)]
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!
}

/** The ref to build in the clone at `root` and what it is; throws, saying why, when the clone cannot give it. */
export function previousRef(root = ROOT): { readonly commit: string; readonly label: string } {
  const git = (...args: string[]): string => inClone(root, ...args)
  let shallow: string
  try {
    shallow = git('rev-parse', '--is-shallow-repository')
  } catch (error) {
    throw new Error(`the mixed-version test builds the previous version from git history, but ${root} is not a git clone: ${String(error)}`)
  }
  if (shallow === 'true') {
    throw new Error(
      'the mixed-version test builds the previous version from git history, but this clone is shallow: ' +
        'run `git fetch --unshallow --tags` (in CI, check out with the full history: fetch-depth 0)',
    )
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  // `changeset publish` tags `passcode-auth@<version>`; a `v<version>` tag counts too.
  const tag = git('tag', '--list', 'v*', 'passcode-auth@*', '--sort=-version:refname')
    .split('\n')
    .filter((name) => /^(?:v|passcode-auth@)\d+\.\d+\.\d+$/.test(name) && name.replace(/^v|^passcode-auth@/, '') !== version)
    .sort((a, b) => compareVersions(b.replace(/^v|^passcode-auth@/, ''), a.replace(/^v|^passcode-auth@/, '')))[0]
  const ref = tag ?? PREVIOUS_COMMIT
  let commit: string
  try {
    commit = git('rev-parse', '--verify', `${ref}^{commit}`)
  } catch {
    throw new Error(`the previous version's ${tag === undefined ? 'commit' : 'tag'} ${ref} is not in this clone: run \`git fetch --tags\``)
  }
  return { commit, label: tag ?? `commit ${ref.slice(0, 7)}` }
}

/**
 * The previous version's folder, with its `dist/` built by its own `npm run build`:
 * its files as `git archive` gives them, and this repository's node_modules (the build
 * tools and the peer packages). Made once per commit in the temp folder, by the first
 * test process that needs it.
 */
export async function buildPreviousVersion(commit: string): Promise<string> {
  // Not under node_modules: the declaration bundler leaves out every file whose path has it.
  const cache = join(tmpdir(), 'passcode-auth-previous')
  mkdirSync(cache, { recursive: true })
  const target = join(cache, commit)
  await buildOnce(
    target,
    async (building) => {
      mkdirSync(building)
      const archive = join(cache, `${commit}.tar`)
      git('archive', '--format=tar', `--output=${archive}`, commit)
      execFileSync('tar', ['-xf', archive, '-C', building], { stdio: 'pipe' })
      execFileSync('rm', ['-f', archive])
      symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'))
      await promisify(execFile)('npm', ['run', 'build'], { cwd: building, timeout: 240_000 })
    },
    { maxMs: 240_000 },
  )
  return target
}
