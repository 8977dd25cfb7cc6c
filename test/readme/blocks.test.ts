import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, cli, migratedDataFolder, root, serveInProcess, type ServeUnderTest } from '../cli/cli-process'
import { codeBlocks, QUICK_STARTS } from '../docs/markdown-blocks'

/**
 * Every code block of README.md is exercised somewhere: ```ts blocks compiled and run (unless
 * marked) by test/package/doc-blocks.test.ts, which also checks what the framework quick
 * starts print, the sample output of `npm start` by test/cli/first-start.test.ts,
 * the request log sample by test/cli/serve-log.test.ts, and each ```sh line by the handler below that claims it.
 */

const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
const blocks = codeBlocks(readme)
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }

/** Who runs each kind of shell line. A line no handler claims fails the test. */
const SHELL_LINES: readonly { pattern: RegExp; exercisedBy: string }[] = [
  { pattern: /^npm ci && npm start$/, exercisedBy: 'test/cli/first-start.test.ts' },
  { pattern: /^npm test$/, exercisedBy: 'this suite itself' },
  {
    pattern:
      /^(?:npm init -y|npm pkg set type=module|npm install passcode-auth|npm install --save-dev typescript tsx @types\/node|npx tsc --init --types node)$/,
    exercisedBy: 'test/package/doc-blocks.test.ts, which runs the project setup lines in a new folder (the package from the packed tarball)',
  },
  {
    pattern: /^npm run cli -- /,
    exercisedBy: 'the test below, against a running server (the first through npm and tsx, the others on the bundled command)',
  },
  {
    pattern: /^(?:npm install passcode-auth @electric-sql\/pglite|npx passcode-auth serve)$/,
    exercisedBy: 'test/package/tarball.test.ts, with the packed tarball in an empty folder',
  },
]

const shellLines = blocks.filter((block) => block.lang === 'sh').flatMap((block) => block.code.split('\n').filter((line) => line.trim() !== ''))

describe('README.md code blocks', () => {
  it('are all TypeScript, shell or sample output', () => {
    expect(blocks.map((block) => block.lang).filter((lang) => !['ts', 'sh', 'text'].includes(lang))).toEqual([])
    // The first start's output (test/cli/first-start.test.ts), then the request log (test/cli/serve-log.test.ts).
    expect(blocks.filter((block) => block.lang === 'text').map((block) => block.heading)).toEqual(['Try it: two commands', 'Try it: two commands'])
  })

  it('show each framework quick start exactly as test/readme/<framework>-quickstart.ts', () => {
    for (const { heading, framework } of QUICK_STARTS) {
      const block = blocks.find((candidate) => candidate.heading === heading && candidate.lang === 'ts')
      expect(`${block?.code}\n`, heading).toBe(readFileSync(path.join(root, `test/readme/${framework}-quickstart.ts`), 'utf8'))
    }
  })

  it('have a handler for every shell line, and the first-start test does run npm start', () => {
    for (const line of shellLines)
      expect(
        SHELL_LINES.some(({ pattern }) => pattern.test(line)),
        line,
      ).toBe(true)
    expect(readFileSync(path.join(root, 'test/cli/first-start.test.ts'), 'utf8')).toContain("['npm', 'start',")
    expect(readFileSync(path.join(root, 'test/package/tarball.test.ts'), 'utf8')).toContain("npx(['serve',")
  })
})

describe('README.md "npm run cli" lines, while the server runs', () => {
  let folder: { dir: string; remove(): void }
  let server: ServeUnderTest

  beforeAll(async () => {
    folder = await migratedDataFolder()
    // In this process: the lines below reach it through its socket in the data folder, as
    // from another process (the first line is one: npm and tsx), so no Node process of its own.
    server = await serveInProcess(folder.dir, ['--quiet'])
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    folder?.remove()
  })

  it('each succeed, as pasted into a shell', async () => {
    const lines = shellLines.filter((line) => line.startsWith('npm run cli -- '))
    expect(lines.length).toBeGreaterThan(1)
    const [first, ...others] = lines
    // The first line runs as pasted: sh, npm, the package's "cli" script (tsx on src/cli/index.ts).
    const result = await shell(first!)
    expect(result.code, `${first}\n${result.output}`).toBe(0)
    // The others, parsed by the same shell (an `npm` function in place of npm prints the
    // words it gets), run as the command that script runs (src/cli/index.ts), in this
    // process (test/cli/cli-process.ts): a process per line, or npm and tsx, would cost
    // each line a second of CPU or more, where the command only hands its words to the
    // server.
    expect(packageJson.scripts.cli).toBe('node --import tsx src/cli/index.ts')
    for (const line of others) {
      const words = (await shell(`npm() { printf '%s\\0' "$@"; }\n${line}`)).output.split('\0').slice(0, -1)
      expect(words.slice(0, 3), line).toEqual(['run', 'cli', '--'])
      const run = await cli(words.slice(3), { dataDir: folder.dir })
      expect(run.code, `${line}\n${run.stdout}${run.stderr}`).toBe(0)
    }
    expect(server.stdout()).toContain('passcode-auth serve: listening on')
    // Bounds on the machine, not on the commands: 57 s beside two busy loops, mostly the
    // first line's npm and tsx.
  }, 240_000)

  function shell(script: string): Promise<{ code: number; output: string }> {
    return new Promise((resolve) => {
      execFile(
        'sh',
        ['-c', script],
        { cwd: root, env: cleanEnv({ PASSCODE_AUTH_DATA_DIR: folder.dir }), timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), output: stdout + stderr }),
      )
    })
  }
})
