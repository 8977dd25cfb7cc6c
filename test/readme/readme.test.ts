import { readFileSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { execFile } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { QUICK_STARTS, TYPE_CHECK_ONLY } from '../docs/markdown-blocks'
import { bundleForNode, type NodeBundles } from '../helpers/node-bundle'
import { NODE_FLAGS } from '../helpers/node-flags'

const root = path.resolve(import.meta.dirname, '../..')
const readme = readFileSync(path.join(root, 'README.md'), 'utf8')

/** The ```ts blocks of README.md, in order, with their headings. */
function tsBlocks(): { heading: string; code: string }[] {
  const blocks: { heading: string; code: string }[] = []
  let heading = ''
  const lines = readme.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith('#')) heading = line.replace(/^#+\s*/, '')
    if (line.trim() === '```ts') {
      const start = i + 1
      while (!lines[++i]!.startsWith('```'));
      blocks.push({ heading, code: lines.slice(start, i).join('\n') })
    }
  }
  return blocks
}

describe('README code blocks', () => {
  const blocks = tsBlocks()
  const checked = blocks.filter((block) => block.code.includes(TYPE_CHECK_ONLY))
  const runnable = blocks.filter((block) => !block.code.includes(TYPE_CHECK_ONLY))

  it('has code blocks to test', () => {
    expect(blocks.length).toBeGreaterThan(0)
    expect(checked.length).toBeGreaterThan(0)
  })

  // Blocks that need a server or a secret (marked TYPE_CHECK_ONLY) are compiled, not run,
  // by test/types/type-tests.test.ts (one program with the guides' blocks and the type tests).
  // Each block runs as an ES module in its own node process, the package's names
  // resolving to src/ (bundled with esbuild, as under tsx; see node-bundle.ts). A block
  // that does not bundle fails its own case with esbuild's errors.
  let sources: { dir: string; remove(): void } | undefined
  let bundles: Promise<NodeBundles> | undefined
  const bundled = () =>
    (bundles ??= (() => {
      sources = { dir: mkdtempSync(path.join(tmpdir(), 'readme-')), remove: () => rmSync(sources!.dir, { recursive: true, force: true }) }
      const entries: Record<string, string> = {}
      runnable.forEach((block, index) => {
        const file = path.join(sources!.dir, `block-${index}.ts`)
        // A block must leave nothing open (a server, a database, a timer), or a reader's
        // program would not end after its last line. The watchdog does not keep the
        // process alive itself: it fires only when something else does.
        writeFileSync(
          file,
          `${block.code}\nsetTimeout(() => {\n` +
            `  console.error('still running 5 s after the block ended: ' + process.getActiveResourcesInfo().join(', '))\n` +
            `  process.exit(3)\n` +
            `}, 5_000).unref()\n`,
        )
        entries[`block-${index}`] = file
      })
      return bundleForNode(entries)
    })())

  afterAll(async () => {
    if (bundles !== undefined) (await bundles).remove()
    sources?.remove()
  })

  // Each block runs once; the quick starts' cases below check what it printed.
  const runs = new Map<number, Promise<string>>()
  const run = (index: number): Promise<string> => {
    let output = runs.get(index)
    if (output === undefined) {
      output = bundled().then(
        (bundles) =>
          new Promise<string>((resolve, reject) => {
            // NODE_FLAGS: the same program, about 2 s less CPU for the block that starts a PGlite.
            execFile(
              process.execPath,
              [...NODE_FLAGS, bundles.file(`block-${index}`)],
              { cwd: root, encoding: 'utf8', timeout: 60_000 },
              (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}${stderr}`))),
            )
          }),
      )
      runs.set(index, output)
    }
    return output
  }

  it.each(runnable.map((block, index) => [block.heading, index] as const))(
    'runs the "%s" block',
    async (_, index) => {
      expect(typeof (await run(index))).toBe('string')
    },
    60_000,
  )

  /**
   * The framework quick starts (each also the file test/readme/<framework>-quickstart.ts,
   * so that `tsc -p .` checks it; blocks.test.ts checks they are the same): what the
   * block's run printed.
   */
  describe.each(QUICK_STARTS.map(({ heading, framework }) => [framework, heading] as const))('the %s quick start', (_, heading) => {
    it('runs, answers connect with 200 and shows the protected route who called', async () => {
      const index = runnable.findIndex((block) => block.heading === heading)
      expect(index, heading).toBeGreaterThanOrEqual(0)
      const [connect, events, ...rest] = (await run(index)).trim().split('\n')
      expect(connect).toBe('200 {"status":"success","message":"Authorised Successfully."}')
      expect(events).toMatch(/^200 \{"events":\[\],"calledBy":\{"accountId":"acc_1","kind":"account","passcodeId":"[^"]+","passcodeName":"Acme"\}\}$/)
      expect(rest).toEqual([])
    }, 60_000)
  })
})
