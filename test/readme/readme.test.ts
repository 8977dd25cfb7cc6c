import { readFileSync, mkdtempSync, writeFileSync, symlinkSync, rmSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TYPE_CHECK_ONLY, typeCheckBlocks } from '../docs/markdown-blocks'

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

  it('has code blocks to test', () => {
    expect(blocks.length).toBeGreaterThan(0)
  })

  // Blocks that need a server or a secret (marked TYPE_CHECK_ONLY) are compiled, not run.
  it('type-checks the blocks that cannot run here', async () => {
    const checked = blocks.filter((block) => block.code.includes(TYPE_CHECK_ONLY))
    expect(checked.length).toBeGreaterThan(0)
    expect(await typeCheckBlocks('readme', checked.map((block) => ({ name: block.heading, code: block.code })))).toBe('')
  }, 120_000)

  // Each block runs as an ES module that imports the package by name from src/ through tsx.
  it.each(blocks.filter((block) => !block.code.includes(TYPE_CHECK_ONLY)).map((block) => [block.heading, block.code]))(
    'runs the "%s" block',
    (_, code) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'readme-'))
      try {
        const aliases = {
          'passcode-auth': 'src/index.ts',
          'passcode-auth/memory': 'src/memory.ts',
          'passcode-auth/express': 'src/express/index.ts',
          'passcode-auth/fastify': 'src/fastify/index.ts',
          'passcode-auth/koa': 'src/koa/index.ts',
          'passcode-auth/client': 'src/client/index.ts',
          'passcode-auth/postgres': 'src/stores/postgres/index.ts',
          'passcode-auth/smtp': 'src/mailers/smtp/index.ts',
          'passcode-auth/dashboard': 'src/dashboard/index.ts',
        }
        let source = code
        for (const [name, file] of Object.entries(aliases)) {
          source = source.replaceAll(`'${name}'`, `'${path.join(root, file)}'`)
        }
        const file = path.join(dir, 'block.mts')
        // A block must leave nothing open (a server, a database, a timer), or a reader's
        // program would not end after its last line. The watchdog does not keep the
        // process alive itself: it fires only when something else does.
        writeFileSync(
          file,
          `${source}\nsetTimeout(() => {\n` +
            `  console.error('still running 5 s after the block ended: ' + process.getActiveResourcesInfo().join(', '))\n` +
            `  process.exit(3)\n` +
            `}, 5_000).unref()\n`,
        )
        symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
        const output = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 60_000 })
        expect(typeof output).toBe('string')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
