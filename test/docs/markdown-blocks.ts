/** Code blocks of the README and guides (their TypeScript is type-checked by test/types/type-tests.test.ts). */

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
export const CHECKED_GUIDES = [
  'audit.md',
  'cli.md',
  'concepts.md',
  'dashboard.md',
  'express.md',
  'fastify.md',
  'koa.md',
  'notifications.md',
  'operations.md',
  'postgres.md',
  'spec-decisions.md',
]

/** The marker of a TypeScript block that is type-checked but not run (it needs a server, a secret…). */
export const TYPE_CHECK_ONLY = '// readme: type-check only'

/**
 * The README's framework quick starts: each one's heading and framework. The block is the
 * file test/readme/<framework>-quickstart.ts, byte for byte (test/readme/blocks.test.ts),
 * so that `tsc -p .` checks it; test/readme/readme.test.ts runs it with the README's other
 * blocks and checks what it prints.
 */
export const QUICK_STARTS = [
  { heading: 'Express (4 and 5)', framework: 'express' },
  { heading: 'Fastify (4 and 5)', framework: 'fastify' },
  { heading: 'Koa (2 and 3)', framework: 'koa' },
  { heading: 'Hono (4)', framework: 'hono' },
  { heading: 'Fetch: Bun, Deno, Workers, Next.js', framework: 'fetch' },
] as const
