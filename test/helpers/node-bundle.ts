import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { build, type BuildOptions } from 'esbuild'

const root = path.resolve(import.meta.dirname, '../..')

/** Programs bundled by {@link bundleForNode}: each name's entry file, or why it did not bundle. */
export interface NodeBundles {
  /** The `.mjs` file to run with `node` for `name`; throws the bundler's errors about that program. */
  file(name: string): string
  /** Deletes the bundles. */
  remove(): void
}

/**
 * Bundles TypeScript programs (README blocks, quick starts, example hosts) for a plain
 * `node` process, as tsup bundles the package: package names resolve to src/ through
 * tsconfig.json `paths`, every other package stays an import from the repository's
 * node_modules, and modules loaded with `import()` stay separate files loaded only when
 * called. The programs do what they do under `tsx` (esbuild strips the types in both
 * cases), without tsx's start-up and per-file transforms: about half a second of CPU
 * per process.
 *
 * All programs are bundled in one esbuild run (shared code in shared chunks). When that
 * fails, each is bundled alone so that only the broken ones fail, each with its own
 * errors.
 */
export async function bundleForNode(programs: Readonly<Record<string, string>>): Promise<NodeBundles> {
  const cache = path.join(root, 'node_modules/.cache/node-bundles')
  mkdirSync(cache, { recursive: true })
  // Under node_modules/.cache, so that the bundles' imports find the repository's packages.
  const dir = mkdtempSync(path.join(cache, 'bundle-'))
  const files = new Map<string, string | Error>()
  try {
    await bundle(programs, dir)
    for (const name of Object.keys(programs)) files.set(name, path.join(dir, `${name}.mjs`))
  } catch {
    for (const [name, entry] of Object.entries(programs)) {
      const alone = path.join(dir, `alone-${name}`)
      try {
        await bundle({ [name]: entry }, alone)
        files.set(name, path.join(alone, `${name}.mjs`))
      } catch (error) {
        files.set(name, error instanceof Error ? error : new Error(String(error)))
      }
    }
  }
  return {
    file(name) {
      const file = files.get(name)
      if (file === undefined) throw new Error(`no program named ${name}`)
      if (file instanceof Error) throw new Error(`${name} did not bundle: ${file.message}`)
      return file
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * esbuild's settings for a program that plain `node` runs from inside the repository, as
 * tsup builds dist/: ES modules with shared chunks, and every package (dependencies,
 * frameworks) left an import resolved from the repository's node_modules.
 */
export const forNode = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
} as const satisfies BuildOptions

async function bundle(programs: Readonly<Record<string, string>>, outdir: string): Promise<void> {
  const options: BuildOptions = {
    ...forNode,
    entryPoints: programs,
    absWorkingDir: root,
    tsconfig: path.join(root, 'tsconfig.json'),
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent',
  }
  await build(options)
}
