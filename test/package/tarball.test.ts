import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packRepository, removePackedTarball, repositoryRoot, type PackedTarball } from '../helpers/packed-tarball'

/**
 * `npm pack` on a fresh clone after `npm ci` (no build run by hand) gives a package
 * that holds every file its package.json points at.
 */

let tarball: PackedTarball | undefined

beforeAll(async () => {
  tarball = await packRepository()
}, 600_000)

afterAll(() => removePackedTarball(tarball))

/** Every string inside an `exports` value (conditions nest). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(exportTargets)
  return []
}

/** `./dist/x.js` → `dist/x.js`. */
const packagePath = (target: string): string => path.posix.normalize(target)

describe('npm pack on a fresh clone', () => {
  const repositoryManifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
    main: string
    module: string
    types: string
    bin: Record<string, string>
    exports: Record<string, unknown>
    files: string[]
  }
  const packed = (): Set<string> => new Set(tarball?.entries.map((entry) => entry.path))

  it('ships the package.json of the repository', () => {
    expect(tarball?.manifest).toEqual(repositoryManifest)
  })

  it.each(Object.entries(repositoryManifest.exports))('holds every file of exports["%s"]', (_subpath, conditions) => {
    const targets = exportTargets(conditions).map(packagePath)
    expect(targets.length).toBeGreaterThan(0)
    expect(targets.filter((target) => !packed().has(target))).toEqual([])
  })

  it.each(['main', 'module', 'types'] as const)('holds the "%s" file', (field) => {
    expect(packed()).toContain(packagePath(repositoryManifest[field]))
  })

  it.each(Object.entries(repositoryManifest.bin))('holds the "%s" command, executable', (_name, target) => {
    const entry = tarball?.entries.find((candidate) => candidate.path === packagePath(target))
    expect(entry, `${target} is not in the tarball`).toBeDefined()
    expect(entry!.mode & 0o111).toBe(0o111)
  })

  it('holds every entry of "files", and nothing else but the README and package.json', () => {
    const paths = [...packed()]
    for (const entry of repositoryManifest.files) {
      expect(paths.some((file) => file === entry || file.startsWith(`${entry}/`)), `"files" names ${entry}`).toBe(true)
    }
    const outside = paths.filter((file) => !repositoryManifest.files.some((entry) => file === entry || file.startsWith(`${entry}/`)))
    expect(outside.sort()).toEqual(['README.md', 'package.json'])
  })
})
