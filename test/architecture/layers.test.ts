import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ts } from '../helpers/typescript'

/**
 * The layering of docs/architecture.md, checked on every `npm test`: each folder of
 * src/ may import only the folders listed for it (and itself), and only the listed
 * packages. Arrows run one way: core → protocol → service → http → adapters.
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url))

const NODE_BUILTIN = /^node:/
const RULES: Readonly<Record<string, { folders: readonly string[]; packages: readonly RegExp[] }>> = {
  core: { folders: [], packages: [/^@noble\/hashes(\/|$)/] },
  protocol: { folders: ['core'], packages: [/^zod$/] },
  ports: { folders: ['core'], packages: [] },
  service: { folders: ['core', 'protocol', 'ports'], packages: [/^zod$/, /^jose$/, /^@noble\/hashes(\/|$)/, /^ipaddr\.js$/] },
  http: { folders: ['core', 'protocol', 'ports', 'service'], packages: [NODE_BUILTIN] },
  express: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^express$/] },
  fastify: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^fastify$/, /^fastify-plugin$/] },
  koa: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^koa$/] },
  // The framework-neutral entry point of the dashboard (its browser files are not TypeScript).
  dashboard: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [] },
  // Web-standard Request/Response only: no Node built-in, so they run on Bun, Deno and the edge.
  fetch: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [] },
  hono: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^hono$/] },
  // Nest on Express or Fastify: the Express and Fastify adapters' readers and writers, whose
  // framework imports are types only (test/http/no-framework-import.test.ts loads it).
  nestjs: {
    folders: ['core', 'protocol', 'ports', 'service', 'http', 'express', 'fastify'],
    packages: [NODE_BUILTIN, /^@nestjs\/common$/, /^@nestjs\/core$/, /^express$/, /^fastify$/],
  },
  // Not the service: what a store shares with it (the limiter's failure windows) is in core/.
  stores: { folders: ['core', 'ports'], packages: [NODE_BUILTIN, /^zod$/, /^@noble\/hashes(\/|$)/, /^pg$/, /^@electric-sql\/pglite(\/|$)/] },
  mailers: { folders: ['core', 'ports'], packages: [NODE_BUILTIN, /^zod$/, /^nodemailer$/] },
  client: { folders: ['core', 'protocol'], packages: [] },
  // The secretlint rule: secretlint's types, for the type checker only (test below).
  secretlint: { folders: ['core'], packages: [/^@secretlint\/types$/] },
  // passcode-auth/webhooks, for receivers: browsers, edge runtimes, Node (test below: no package reached).
  webhooks: { folders: ['core'], packages: [] },
}
// The command line and the entry files (src/index.ts, src/memory.ts) compose everything.
const UNRULED = new Set(['cli', 'index.ts', 'memory.ts'])

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Where `file` imports from: `./x` as the src/ folder it lands in, packages as named. */
function importsOf(file: string): { specifier: string; folder: string | undefined }[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return importedFiles.map(({ fileName: specifier }) => {
    if (!specifier.startsWith('.')) return { specifier, folder: undefined }
    const target = relative(SRC, resolve(dirname(file), specifier))
    return { specifier, folder: target.split(sep)[0]! }
  })
}

/** Every import that breaks the rules, as `file → specifier`. */
function layeringViolations(): string[] {
  const violations: string[] = []
  for (const file of sourceFiles(SRC)) {
    const layer = relative(SRC, file).split(sep)[0]!
    if (UNRULED.has(layer)) continue
    const rule = RULES[layer]
    if (rule === undefined) {
      violations.push(`${relative(SRC, file)}: src/${layer} has no rule in test/architecture/layers.test.ts`)
      continue
    }
    for (const { specifier, folder } of importsOf(file)) {
      const allowed =
        folder === undefined ? rule.packages.some((pattern) => pattern.test(specifier)) : folder === layer || rule.folders.includes(folder)
      if (!allowed) violations.push(`${relative(SRC, file)} → ${specifier}`)
    }
  }
  return violations
}

/** The src/ file a relative specifier names (`./x`, `./x.js`, `./folder` → its index.ts). */
function resolveSource(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''))
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate))
}

/** Every file of src/ and the src/ files it imports (type-only imports too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sourceFiles(SRC)) {
    const targets = importsOf(file).flatMap(({ specifier, folder }) => (folder === undefined ? [] : [resolveSource(file, specifier)]))
    graph.set(
      relative(SRC, file),
      targets.filter((target): target is string => target !== undefined).map((target) => relative(SRC, target)),
    )
  }
  return graph
}

/**
 * The import cycles of `graph`: its strongly connected components of more than one
 * file (or a file importing itself), each as its sorted files.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  const order = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (file: string): void => {
    order.set(file, order.size)
    low.set(file, order.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, order.get(target)!))
      }
    }
    if (low.get(file) !== order.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort())
  }
  for (const file of graph.keys()) if (!order.has(file)) visit(file)
  return cycles
}

describe('layering (docs/architecture.md)', () => {
  it('every import in src/ runs down the layers and uses only the packages its layer may use', () => {
    expect(layeringViolations()).toEqual([])
  })

  it('sees real imports, type-only ones included, and not code in comments', () => {
    const fixture = join(SRC, 'service', '__fixture__.ts')
    const text =
      "import type { X } from '../http/outcomes'\n/** ```ts\n import { y } from 'express'\n``` */\nconst z = await import('../stores/memory/memory-store')\n"
    const found = ts.preProcessFile(text, true, true).importedFiles.map((entry) => entry.fileName)
    expect(found).toEqual(['../http/outcomes', '../stores/memory/memory-store'])
    expect(relative(SRC, resolve(dirname(fixture), found[0]!)).split(sep)[0]).toBe('http')
  })

  it('no file of src/ imports itself back through other files (type-only imports included)', () => {
    expect(importCycles(importGraph())).toEqual([])
  })

  // A scanner runs over every file of a repository: the rule loads the passcode format
  // and nothing else of the package, and secretlint's types are erased.
  it('the secretlint rule loads the passcode format only, and imports secretlint for types only', () => {
    const graph = importGraph()
    const reached = new Set<string>()
    const visit = (file: string): void => {
      if (reached.has(file)) return
      reached.add(file)
      for (const target of graph.get(file) ?? []) visit(target)
    }
    visit(join('secretlint', 'index.ts'))
    expect([...reached].sort()).toEqual(
      [
        join('core', 'base62.ts'),
        join('core', 'crc32.ts'),
        join('core', 'passcode-format.ts'),
        join('secretlint', 'index.ts'),
        join('secretlint', 'passcode-rule.ts'),
      ].sort(),
    )
    const packages = [...reached].flatMap((file) => importsOf(join(SRC, file)).filter(({ folder }) => folder === undefined))
    expect(packages.map(({ specifier }) => specifier).sort()).toEqual(['@noble/hashes/utils.js', '@secretlint/types'])
    const rule = readFileSync(join(SRC, 'secretlint', 'passcode-rule.ts'), 'utf8')
    expect(rule.match(/^import .* from '@secretlint\/types'$/gm)).toEqual([expect.stringMatching(/^import type /)])
  })

  // Receivers bundle the verifier into a page or an edge function: it loads pure core
  // files and no package; core/audit.ts is reached for a type only, erased (its bundle
  // and size: test/webhooks/verify-webhook.test.ts).
  it('the webhooks entry loads only pure core files and no package', () => {
    const graph = importGraph()
    const reached = new Set<string>()
    const visit = (file: string): void => {
      if (reached.has(file)) return
      reached.add(file)
      // Reached for a type only: nothing it imports is loaded.
      if (file === join('core', 'audit.ts')) return
      for (const target of graph.get(file) ?? []) visit(target)
    }
    visit(join('webhooks', 'index.ts'))
    expect([...reached].sort()).toEqual(
      [
        join('core', 'audit.ts'),
        join('core', 'class-name.ts'),
        join('core', 'webhook-events.ts'),
        join('core', 'webhook-secret.ts'),
        join('webhooks', 'index.ts'),
        join('webhooks', 'verify-webhook.ts'),
      ].sort(),
    )
    const loaded = [...reached].filter((file) => file !== join('core', 'audit.ts'))
    expect(loaded.flatMap((file) => importsOf(join(SRC, file)).filter(({ folder }) => folder === undefined))).toEqual([])
    const events = readFileSync(join(SRC, 'core', 'webhook-events.ts'), 'utf8')
    expect(events.match(/^import .* from '\.\/audit'$/gm)).toEqual([expect.stringMatching(/^import type /)])
  })

  it('finds cycles, and only cycles, in an import graph', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
      ['f.ts', ['d.ts']],
    ])
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']])
    expect(importGraph().get(join('stores', 'postgres', 'database.ts'))).toContain(join('stores', 'postgres', 'pglite-database.ts'))
  })
})
