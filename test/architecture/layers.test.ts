import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

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
  service: { folders: ['core', 'protocol', 'ports'], packages: [/^zod$/, /^jose$/, /^@noble\/hashes(\/|$)/] },
  http: { folders: ['core', 'protocol', 'ports', 'service'], packages: [NODE_BUILTIN] },
  express: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^express$/] },
  fastify: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^fastify$/, /^fastify-plugin$/] },
  koa: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^koa$/] },
  // The framework-neutral entry point of the dashboard (its browser files are not TypeScript).
  dashboard: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [] },
  // Web-standard Request/Response only: no Node built-in, so they run on Bun, Deno and the edge.
  fetch: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [] },
  hono: { folders: ['core', 'protocol', 'ports', 'service', 'http'], packages: [/^hono$/] },
  stores: { folders: ['core', 'ports', 'service'], packages: [NODE_BUILTIN, /^zod$/, /^@noble\/hashes(\/|$)/, /^pg$/, /^@electric-sql\/pglite(\/|$)/] },
  mailers: { folders: ['core', 'ports'], packages: [NODE_BUILTIN, /^zod$/, /^nodemailer$/] },
  client: { folders: ['core', 'protocol'], packages: [] },
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

describe('layering (docs/architecture.md)', () => {
  it('every import in src/ runs down the layers and uses only the packages its layer may use', () => {
    expect(layeringViolations()).toEqual([])
  })

  it('sees real imports, type-only ones included, and not code in comments', () => {
    const fixture = join(SRC, 'service', '__fixture__.ts')
    const text = "import type { X } from '../http/outcomes'\n/** ```ts\n import { y } from 'express'\n``` */\nconst z = await import('../stores/memory/memory-store')\n"
    const found = ts.preProcessFile(text, true, true).importedFiles.map((entry) => entry.fileName)
    expect(found).toEqual(['../http/outcomes', '../stores/memory/memory-store'])
    expect(relative(SRC, resolve(dirname(fixture), found[0]!)).split(sep)[0]).toBe('http')
  })
})
