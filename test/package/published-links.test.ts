import { readFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { packedPackages, repositoryRoot } from '../helpers/packed-tarball'

/**
 * What a newcomer reads on npm: the README and the guides it links ship in the
 * tarball, and every relative link of a shipped Markdown file (`[text](target)`,
 * `<img src>`) points at a file the tarball holds, so no link is dead on npm or in an
 * installed package. Read from the packed tarball's file list (test/helpers/packed-tarball.ts):
 * the one the package tests share, made once per run, so no `npm pack --dry-run` of its own
 * (about 3 CPU-s of npm reading the tree again).
 */

const root = repositoryRoot

/** The relative link targets of a Markdown file, without their anchors. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g), ...markdown.matchAll(/<img [^>]*src="([^"]+)"/g)].map((match) => match[1]!)
  return targets.filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#')).map((target) => target.replace(/#.*$/, ''))
}

describe('the npm package', () => {
  let files: Set<string>

  beforeAll(async () => {
    const { library } = await packedPackages()
    files = new Set(library.entries.map((entry) => entry.path))
  }, 900_000)

  it('ships the guides, their images and the examples the README links', () => {
    for (const file of ['README.md', 'LICENSE', 'docs/cli.md', 'docs/openapi.json', 'docs/images/dashboard-passcodes.png', 'examples/README.md'])
      expect(files, file).toContain(file)
    // Generated API pages and test files stay out.
    expect([...files].filter((file) => file.startsWith('docs/api/') || file.startsWith('test/') || file.startsWith('src/'))).toEqual([])
  })

  it('has no dead relative link in any Markdown file it ships', () => {
    const markdown = [...files].filter((file) => file.endsWith('.md'))
    expect(markdown.length).toBeGreaterThan(10)
    for (const file of markdown) {
      for (const target of relativeLinks(readFileSync(path.join(root, file), 'utf8'))) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target))
        expect(files.has(resolved) || [...files].some((packed) => packed.startsWith(`${resolved.replace(/\/$/, '')}/`)), `${file} → ${target}`).toBe(
          true,
        )
      }
    }
  })
})
