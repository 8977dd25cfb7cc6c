import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type TS from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeBlocks, documentationFiles, documentedBlocks, QUICK_STARTS, TYPE_CHECK_ONLY, type DocumentedBlock } from '../docs/markdown-blocks'
import { cleanEnv, temporaryFolder } from '../helpers/cli-command'
import { NODE_FLAGS } from '../helpers/node-flags'
import { cleanNpmEnvironment, packedPackages, repositoryRoot } from '../helpers/packed-tarball'
import { ts } from '../helpers/typescript'

/**
 * Every TypeScript block of the README, of the guides in docs/ and of the partner
 * client's README, as a reader uses it: in a project made by `npm init -y`, then set up
 * by the README's "Project setup" lines as written (the package is the packed tarball,
 * the tools are at the repository's versions), with the library's peer dependencies (the
 * frameworks and databases the blocks import) and the partner client's package, which
 * the `npm install` of the package installs beside it (the setup's last step here: the
 * other lines need no package and run while it is packed). `npx tsc` compiles every block,
 * with the settings `tsc --init` wrote (strict, `exactOptionalPropertyTypes`,
 * `verbatimModuleSyntax`…); then each block not marked TYPE_CHECK_ONLY runs as
 * `node app.js` runs it, with none of the library's variables set: it must exit 0 by
 * itself. What the framework quick starts print is checked; the
 * Quick start also runs through `npx tsx`, and as an `.mts` file in a CommonJS folder,
 * as the README says. The NestJS guide's blocks use Nest's decorators, TypeScript's legacy
 * ones: they are compiled as the guide says a Nest project is set up, in a folder whose
 * tsconfig.json extends the project's with `experimentalDecorators` and
 * `emitDecoratorMetadata` (what `nest new` writes): a second program, which the same
 * `npx tsc --build` compiles after the first, reading the files both programs share
 * (the package's declarations, Node's types, the frameworks') once instead of twice.
 *
 * The blocks are independent programs (none binds a fixed port: the servers listen on
 * port 0, or answer Fastify's and Nest's `inject`), so they run {@link BLOCKS_AT_ONCE}
 * at a time as soon as both programs are compiled, the longest first (see
 * {@link runOrder}); each case then reads its own block's result.
 */

const run = (file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeout: number) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd, env, timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    )
  })

const readme = readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8')
const SETUP_HEADING = 'Project setup: TypeScript and ES modules'
const SETUP_ANCHOR = 'project-setup-typescript-and-es-modules'
const blocks = documentedBlocks()
const runnable = blocks.filter((block) => !block.typeCheckOnly)
const quickStart = blocks.find((block) => block.file === 'README.md' && block.heading === 'Quick start')!
const repositoryManifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>
}

/** The guides whose blocks need Nest's decorator settings, and the folder they are compiled in. */
const DECORATOR_GUIDES: readonly string[] = ['docs/nestjs.md']
/**
 * A name with a leading dot: the default `include` of the project's tsconfig.json (every
 * file below it) leaves such folders out, so the project's own program does not take
 * the Nest blocks in with its settings.
 */
const DECORATOR_FOLDER = '.nestjs'
/** How many blocks run at a time: a few processes, most of them waiting on their own event loop's end. */
const BLOCKS_AT_ONCE = 4
/**
 * How long one block's process may run: a block that starts a PGlite took 55 s of it on a
 * machine loaded 25 deep, where it takes 9 CPU-s.
 */
const BLOCK_RUN_MS = 120_000
/**
 * How long a case may wait for its block: its turn among the runnable blocks, four at a
 * time, then its own run.
 */
const BLOCK_CASE_MS = 300_000
const needsDecorators = (block: DocumentedBlock) => DECORATOR_GUIDES.includes(block.file)

/**
 * Where a block's run goes in the queue: the longest first, so that they run beside the
 * short ones instead of after them, where one would hold the file open alone. A block
 * that starts a PGlite takes about 9 CPU-s (the WebAssembly PostgreSQL's start and the
 * migrations), one on Nest about 2, most others under one. In document order otherwise.
 */
const runOrder = (block: DocumentedBlock): number =>
  block.code.includes("from '@electric-sql/pglite'") ? 0 : block.code.includes("from '@nestjs/") ? 1 : 2

/** `docs/client.md:10` → `blocks/docs-client-10.ts`; `docs/nestjs.md:37` → `.nestjs/docs-nestjs-37.ts`. */
const sourceOf = (block: DocumentedBlock) =>
  `${needsDecorators(block) ? DECORATOR_FOLDER : 'blocks'}/${block.name.replace(/\.md:/, '-').replace(/[/.]/g, '-')}.ts`

/** The version range the repository itself uses of a tool or peer: what the project installs. */
function pinned(name: string): string {
  const range = repositoryManifest.devDependencies[name]
  if (range === undefined) throw new Error(`${name} is not a devDependency of the repository: add it, or install what the block imports otherwise`)
  return `${name}@${range}`
}

/** Runs the tasks given to it at most `limit` at a time, in the order given; each call answers its own task's result. */
function concurrency(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      // The slot passes to the next task waiting, or is given back.
      const next = waiting.shift()
      if (next === undefined) running--
      else next()
    }
  }
}

/** Whether the module `code` has an `await` outside every function (which a CommonJS module refuses). */
function hasTopLevelAwait(code: string): boolean {
  const source = ts.createSourceFile('block.ts', code, ts.ScriptTarget.Latest)
  const visit = (node: TS.Node): boolean => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier !== undefined)) return true
    return ts.forEachChild(node, visit) ?? false
  }
  return visit(source)
}

describe('the documentation blocks', () => {
  it('are all compiled; the marked ones say why they are not run; names they only declare are not run either', () => {
    expect(blocks.length).toBeGreaterThan(40)
    expect(runnable.length).toBeGreaterThan(20)
    for (const block of blocks) {
      // Why, in parentheses after the marker, unless the block declares the names it uses (`declare const auth: PasscodeAuth`).
      if (block.typeCheckOnly) expect(block.code, block.name).toMatch(/^\/\/ readme: type-check only \(.+\)$|^declare /m)
      else {
        expect(block.code, `${block.name}: the marker goes on the first line`).not.toContain(TYPE_CHECK_ONLY)
        expect(block.code, `${block.name} declares names it does not define: mark it ${TYPE_CHECK_ONLY}`).not.toMatch(/^declare /m)
      }
    }
  })

  it('that use top-level await are where the reader is told to set up an ES module project', () => {
    const setupAt = codeBlocks(readme).find((block) => block.heading === SETUP_HEADING)!.line
    for (const file of documentationFiles()) {
      const waiting = blocks.filter((block) => block.file === file && hasTopLevelAwait(block.code))
      if (waiting.length === 0) continue
      const text = readFileSync(path.join(repositoryRoot, file), 'utf8')
      if (file === 'README.md') expect(Math.min(...waiting.map((block) => block.line))).toBeGreaterThan(setupAt)
      else if (file.startsWith('docs/')) expect(text, `${file} has top-level await`).toContain(`(../README.md#${SETUP_ANCHOR})`)
      // The client's README ships without the library's: it says so itself.
      else expect(text, `${file} has top-level await`).toContain('"type": "module"')
    }
  })
})

describe('the documentation blocks, in a new project with the packed package', () => {
  let project: { dir: string; remove(): void }
  /** tsc's diagnostics, by block source file (relative to the project). */
  const diagnostics = new Map<string, string[]>()
  let compiled = ''
  type Run = Promise<{ code: number; stdout: string; stderr: string }>
  /** Each runnable block's run, once (the quick starts' cases read what it printed). */
  const runs = new Map<string, Run>()
  const slots = concurrency(BLOCKS_AT_ONCE)
  /** The Quick start's other two runs: through `npx tsx`, and as the `.mts` file in the CommonJS folder. */
  let quickStartRuns: { tsx: Run; commonjs: Run }
  const npmEnvironment = () => cleanNpmEnvironment()
  /** A reader's shell: none of the library's variables, no npm settings of the parent. */
  const readerEnvironment = () => cleanEnv(cleanNpmEnvironment())

  const runBlock = (block: DocumentedBlock) => {
    let result = runs.get(block.name)
    if (result === undefined) {
      // NODE_FLAGS: the same program, about 2 s less CPU for the block that starts a PGlite.
      result = slots(() =>
        run(process.execPath, [...NODE_FLAGS, sourceOf(block).replace(/\.ts$/, '.js')], project.dir, readerEnvironment(), BLOCK_RUN_MS),
      )
      runs.set(block.name, result)
    }
    return result
  }

  beforeAll(async () => {
    // Awaited by the package's install only: the setup's other lines run while it is packed (on a fresh clone, by this file).
    const packing = packedPackages()
    packing.catch(() => {}) // its failure is thrown by that install, not reported before as an unhandled rejection
    project = temporaryFolder('passcode-auth-doc-blocks-')
    const npm = async (args: readonly string[]) => {
      const result = await run('npm', args, project.dir, npmEnvironment(), 300_000)
      if (result.code !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`)
    }
    const quiet = ['--no-audit', '--no-fund', '--prefer-offline']
    // What the blocks import beyond the package: its peers (frameworks, databases), with
    // their types where they have them, and the partner client's own package. The
    // README says to install them beside it: they go into the same `npm install` as the
    // package (one install less, each reading the whole tree again: seconds of CPU).
    const withPackage = async () => {
      const { library, client } = await packing
      const peers = Object.keys(library.manifest.peerDependencies as Record<string, string>)
      const types = peers.map((name) => `@types/${name.replace(/^@(.*)\//, '$1__')}`).filter((name) => name in repositoryManifest.devDependencies)
      return [library.file, ...peers.map(pinned), ...types.map(pinned), client.file]
    }
    // The README's setup, line by line; the package is the tarball, the tools are pinned.
    // No other line needs the package (a project, its type, the tools, tsc's settings), so
    // they run first, in their order, and the package's install last, once it is packed:
    // the same project, without a fresh clone's pack and the lines after it in a row.
    const setup = codeBlocks(readme).find((block) => block.heading === SETUP_HEADING && block.lang === 'sh')!
    const lines = setup.code
      .split('\n')
      .filter((text) => text.trim() !== '')
      .map((text) => text.trim().split(/\s+/))
    const installsPackage = (words: readonly string[]) => words[0] === 'npm' && words[1] === 'install' && words.includes('passcode-auth')
    if (lines.filter(installsPackage).length !== 1 || lines.some((words) => !installsPackage(words) && words.includes('passcode-auth')))
      throw new Error(`the README's "${SETUP_HEADING}" should install passcode-auth on one line, and name it on no other:\n${setup.code}`)
    for (const [command, ...words] of [...lines.filter((line) => !installsPackage(line)), ...lines.filter(installsPackage)]) {
      if (command === 'npm' && words[0] === 'install') {
        const named = words.filter((word) => word !== 'passcode-auth')
        const added = named.length < words.length ? await withPackage() : []
        await npm([...named.map((word) => (word.startsWith('-') || word === 'install' ? word : pinned(word))), ...added, ...quiet])
      } else {
        const result = await run(command!, words, project.dir, npmEnvironment(), 120_000)
        if (result.code !== 0) throw new Error(`${[command, ...words].join(' ')} failed:\n${result.stdout}${result.stderr}`)
      }
    }

    const write = (block: DocumentedBlock) => {
      mkdirSync(path.dirname(path.join(project.dir, sourceOf(block))), { recursive: true })
      writeFileSync(path.join(project.dir, sourceOf(block)), `${block.code}\n`)
    }
    for (const block of blocks) write(block)
    // A CommonJS folder keeps its type: the README's `.mts` file.
    mkdirSync(path.join(project.dir, 'commonjs'))
    writeFileSync(path.join(project.dir, 'commonjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`)
    writeFileSync(path.join(project.dir, 'commonjs', 'quick-start.mts'), `${quickStart.code}\n`)
    // The Nest blocks' folder, with Nest's two settings added to the project's.
    const decorators = { extends: '../tsconfig.json', compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } }
    writeFileSync(path.join(project.dir, DECORATOR_FOLDER, 'tsconfig.json'), `${JSON.stringify(decorators, null, 2)}\n`)

    // One program for every other block, as `npx tsc` compiles a project (it writes the
    // .js files too, also beside a block with errors), then the Nest blocks' program: one
    // `tsc --build` of both projects, which prints each one's diagnostics as `tsc` does.
    const tsc = await run('npx', ['tsc', '--build', 'tsconfig.json', DECORATOR_FOLDER, '--pretty', 'false'], project.dir, npmEnvironment(), 300_000)
    compiled = tsc.stdout + tsc.stderr
    for (const line of compiled.split('\n')) {
      const match = /^([^(\s]+)\(\d+,\d+\): error /.exec(line)
      if (match !== null) diagnostics.set(match[1]!, [...(diagnostics.get(match[1]!) ?? []), line])
    }
    // Every block starts now, a few at a time, the longest first, in the background: the
    // cases below await their own. The Quick start through `npx tsx` (npm's start, then
    // esbuild's) comes after the PGlite and Nest blocks, before the rest.
    const queued = [...runnable].sort((a, b) => runOrder(a) - runOrder(b))
    for (const block of queued.filter((candidate) => runOrder(candidate) < 2)) void runBlock(block)
    const tsx = slots(() => run('npx', ['tsx', sourceOf(quickStart)], project.dir, readerEnvironment(), BLOCK_RUN_MS))
    for (const block of queued.filter((candidate) => runOrder(candidate) === 2)) void runBlock(block)
    quickStartRuns = {
      tsx,
      commonjs: slots(() => run(process.execPath, ['commonjs/quick-start.mjs'], project.dir, readerEnvironment(), BLOCK_RUN_MS)),
    }
  }, 900_000)

  afterAll(() => project?.remove())

  it('has the setup the README shows: an ES module project, tsc --init with the Node types', () => {
    const manifest = JSON.parse(readFileSync(path.join(project.dir, 'package.json'), 'utf8')) as Record<string, unknown>
    expect(manifest.type).toBe('module')
    expect(readFileSync(path.join(project.dir, 'tsconfig.json'), 'utf8')).toMatch(/^\s*"types": \["node"\],$/m)
    // Nothing but the blocks' own diagnostics: no option or global error.
    const elsewhere = compiled.split('\n').filter((line) => line.includes('error TS') && !/^(blocks|commonjs|\.nestjs)\//.test(line))
    expect(elsewhere).toEqual([])
  })

  it.each(blocks.map((block) => [block.name, block] as const))('compiles: %s', (_, block) => {
    expect((diagnostics.get(sourceOf(block)) ?? []).join('\n')).toBe('')
  })

  it.each(runnable.map((block) => [block.name, block] as const))(
    'runs, and ends by itself: %s',
    async (_, block) => {
      const result = await runBlock(block)
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0)
    },
    BLOCK_CASE_MS,
  )

  describe.each(QUICK_STARTS.map(({ heading, framework }) => [framework, heading] as const))('the %s quick start', (_, heading) => {
    it(
      'answers connect with 200 and shows the protected route who called',
      async () => {
        const block = runnable.find((candidate) => candidate.file === 'README.md' && candidate.heading === heading)
        expect(block, heading).toBeDefined()
        const [connect, events, ...rest] = (await runBlock(block!)).stdout.trim().split('\n')
        expect(connect).toBe('200 {"status":"success","message":"Authorised Successfully."}')
        expect(events).toMatch(
          /^200 \{"events":\[\],"calledBy":\{"accountId":"acc_1","kind":"account","passcodeId":"[^"]+","passcodeName":"Acme"\}\}$/,
        )
        expect(rest).toEqual([])
      },
      BLOCK_CASE_MS,
    )
  })

  it(
    'runs the Quick start with `npx tsx app.ts`, and as `app.mts` in a CommonJS folder, as the README says',
    async () => {
      // What differs from run to run: the passcode's hint and id.
      const printed = (stdout: string) =>
        stdout.replace(/psc_…[A-Za-z0-9]+/g, 'psc_…').replace(/'[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}'/g, "'<id>'")
      const expected = printed((await runBlock(quickStart)).stdout)
      expect(expected).toContain("200 { status: 'success', message: 'Authorised Successfully.' }")
      const tsx = await quickStartRuns.tsx
      expect([tsx.code, printed(tsx.stdout)], tsx.stderr).toEqual([0, expected])
      expect(diagnostics.get('commonjs/quick-start.mts') ?? []).toEqual([])
      const mjs = await quickStartRuns.commonjs
      expect([mjs.code, printed(mjs.stdout)], mjs.stderr).toEqual([0, expected])
    },
    BLOCK_CASE_MS,
  )
})
