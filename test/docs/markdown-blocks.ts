import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { typeCheckEachFile } from '../helpers/type-check'

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

/**
 * The guides whose code is checked (their TypeScript type-checked by
 * test/types/type-tests.test.ts, their command lines parsed by guides.test.ts): those of
 * the CLI-and-docs issue. Others (client.md, security.md's hardening sections, the
 * reports) use fragments with the reader's own variables, checked by their own issues.
 */
export const CHECKED_GUIDES = ['cli.md', 'concepts.md', 'dashboard.md', 'express.md', 'fastify.md', 'koa.md', 'notifications.md', 'postgres.md', 'spec-decisions.md']

/** The marker of a TypeScript block that is type-checked but not run (it needs a server, a secret…). */
export const TYPE_CHECK_ONLY = '// readme: type-check only'

/**
 * Type-checks blocks with the repository's tsconfig (strict, package names mapped to
 * src/), all in one program, and resolves with each block's diagnostics apart (`each[i]`
 * for `blocks[i]`, empty when it compiles) so that a test per block fails on its own
 * block; `program` holds those of no one block (options, globals). Each block is its own
 * module (`node_modules/.cache/doc-blocks/<suite>/block-<n>.ts`, its name on the first
 * line), so top-level await and its own imports work as in a host's file.
 */
export async function typeCheckEachBlock(suite: string, blocks: readonly { name: string; code: string }[]): Promise<{ program: string; each: string[] }> {
  const dir = path.join(root, 'node_modules/.cache/doc-blocks', suite)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const files = blocks.map((block, index) => {
    const file = path.join(dir, `block-${index}.ts`)
    writeFileSync(file, `// ${block.name}\n${block.code}\nexport {}\n`)
    return file
  })
  // A block may declare what its reader then uses elsewhere.
  const { program, each } = typeCheckEachFile(files, { noUnusedLocals: false })
  return { program, each: files.map((file) => each.get(file) ?? '') }
}
