import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Code blocks of the README and guides. Their TypeScript is compiled, and run unless
 * marked {@link TYPE_CHECK_ONLY}, by test/package/doc-blocks.test.ts, in a new project
 * with the packed package installed.
 */

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
 * The marker of a TypeScript block that is compiled but not run, on its first line,
 * followed by the reason in parentheses: `// readme: type-check only (it needs a
 * PostgreSQL server)`. A block needs it when it calls an outside service, reads a
 * secret, serves until stopped or uses names the reader declares (`declare const auth`).
 */
export const TYPE_CHECK_ONLY = '// readme: type-check only'

const root = path.resolve(import.meta.dirname, '../..')

/** The Markdown files whose blocks are checked: the README, every guide in docs/, and the partner client's README. */
export function documentationFiles(): string[] {
  const guides = readdirSync(path.join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`)
  return ['README.md', ...guides, 'packages/connect-client/README.md']
}

/** A TypeScript block of the documentation, named by its file and line: `docs/client.md:10`. */
export interface DocumentedBlock extends CodeBlock {
  readonly file: string
  readonly name: string
  /** Compiled only, not run (it starts with {@link TYPE_CHECK_ONLY}). */
  readonly typeCheckOnly: boolean
}

/** Every ```ts block of {@link documentationFiles}, in order. */
export function documentedBlocks(): DocumentedBlock[] {
  return documentationFiles().flatMap((file) =>
    codeBlocks(readFileSync(path.join(root, file), 'utf8'))
      .filter((block) => block.lang === 'ts')
      .map((block) => ({ ...block, file, name: `${file}:${block.line}`, typeCheckOnly: block.code.startsWith(TYPE_CHECK_ONLY) })),
  )
}

/**
 * The README's framework quick starts: each one's heading and framework. The block is the
 * file test/readme/<framework>-quickstart.ts, byte for byte (test/readme/blocks.test.ts),
 * so that `tsc -p .` checks it against src/; test/package/doc-blocks.test.ts runs it with
 * the other blocks and checks what it prints.
 */
export const QUICK_STARTS = [
  { heading: 'Express (4 and 5)', framework: 'express' },
  { heading: 'Fastify (4 and 5)', framework: 'fastify' },
  { heading: 'Koa (2 and 3)', framework: 'koa' },
  { heading: 'Hono (4)', framework: 'hono' },
  { heading: 'Fetch: Bun, Deno, Workers, Next.js', framework: 'fetch' },
] as const
