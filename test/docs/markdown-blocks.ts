import { execFile } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** Code blocks of the README and guides, and a type check for those that cannot run in a test. */

const root = path.resolve(import.meta.dirname, '../..')

/** A fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The fence's info string: `ts`, `sh`, `text`… */
  readonly lang: string
  readonly code: string
  /** The last heading above it. */
  readonly heading: string
  /** Line number of the opening fence (1-based). */
  readonly line: number
}

/** Every fenced block, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  const lines = markdown.split('\n')
  let heading = ''
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+\s*/, '')
    const fence = /^```(\S*)\s*$/.exec(line)
    if (fence === null) continue
    const start = i
    while (i + 1 < lines.length && !lines[++i]!.startsWith('```'));
    blocks.push({ lang: fence[1] ?? '', code: lines.slice(start + 1, i).join('\n'), heading, line: start + 1 })
  }
  return blocks
}

/** The marker of a TypeScript block that is type-checked but not run (it needs a server, a secret…). */
export const TYPE_CHECK_ONLY = '// readme: type-check only'

/**
 * Type-checks blocks with the repository's tsconfig (strict, package names mapped to
 * src/) and resolves tsc's diagnostics, empty when all is well. Each block is its own
 * module, so top-level await and its own imports work as in a host's file.
 */
export function typeCheckBlocks(suite: string, blocks: readonly { name: string; code: string }[]): Promise<string> {
  // One folder per suite, kept with tsc's incremental build info, so that a rerun with
  // unchanged blocks takes seconds.
  const dir = path.join(root, 'node_modules/.cache/doc-blocks', suite)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [index, block] of blocks.entries()) {
    writeFileSync(path.join(dir, `block-${index}.ts`), `// ${block.name}\n${block.code}\nexport {}\n`)
  }
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: true, noUnusedLocals: false, incremental: true, tsBuildInfoFile: path.join(dir, '..', `${suite}.tsbuildinfo`) },
      include: ['*.ts'],
      exclude: [],
    }),
  )
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: root, timeout: 120_000 }, (error, stdout) => {
      resolve(error === null ? '' : stdout || String(error))
    })
  })
}
