import { defineConfig } from 'tsup'

/**
 * The package's entry points, in ONE place: the key is the file name under dist/
 * (and the subpath in package.json "exports"), the value the source file.
 * Adding an entry here means adding the matching "exports" block in package.json,
 * the source file to "files" in tsconfig.build.json, an entry in typedoc.json and a
 * case in test/package/load.test.ts.
 */
export const entries = {
  index: 'src/index.ts',
  memory: 'src/memory.ts',
  express: 'src/express/index.ts',
  fastify: 'src/fastify/index.ts',
  koa: 'src/koa/index.ts',
  client: 'src/client/index.ts',
  postgres: 'src/stores/postgres/index.ts',
  smtp: 'src/mailers/smtp/index.ts',
  dashboard: 'src/dashboard/index.ts',
  fetch: 'src/fetch/index.ts',
  hono: 'src/hono/index.ts',
  secretlint: 'src/secretlint/index.ts',
  webhooks: 'src/webhooks/index.ts',
  nestjs: 'src/nestjs/index.ts',
} as const

/**
 * The `passcode-auth` command (package.json "bin"). Not a subpath of the package, so
 * not in `entries`; it is built with them to share their chunks. Its source starts
 * with `#!/usr/bin/env node`, which esbuild keeps and tsup marks executable.
 */
export const commandEntries = { cli: 'src/cli/index.ts' } as const

/**
 * Where `tsc --project tsconfig.build.json` (the first step of `npm run build`) writes
 * the declarations of src/, one .d.ts per source file; the `dts` step below bundles
 * them from there. The folder is emptied before each build and never shipped.
 */
export const declarationsFolder = '.declarations'

/** `src/express/index.ts` → `.declarations/express/index.d.ts`. */
const declarationOf = (source: string): string => source.replace(/^src\//, `${declarationsFolder}/`).replace(/\.ts$/, '.d.ts')

export default defineConfig({
  entry: { ...entries, ...commandEntries },
  format: ['esm', 'cjs'],
  // .js for ESM and .cjs for CommonJS ("type": "module"); tsup names the
  // declarations to match: .d.ts and .d.cts.
  outDir: 'dist',
  // Declarations for the public entries only (the command has no API), bundled per
  // entry with shared chunks like the JavaScript, as .d.ts and .d.cts. Their input is
  // what tsc emitted, not src/: given .ts files, tsup's bundler would compile them
  // again in its own TypeScript program, which cost four times as much CPU as tsc
  // (docs/architecture.md, Decisions).
  dts: { entry: Object.fromEntries(Object.entries(entries).map(([name, source]) => [name, declarationOf(source)])) },
  clean: true,
  // No source maps: dist/ is unminified and keeps every name, and maps were 59 % of the unpacked package.
  sourcemap: false,
  target: 'node20',
  platform: 'node',
  // Shared modules (src/core/errors.ts above all) become chunks that every entry
  // imports, so a class is defined once per format and `instanceof` holds across
  // entry points. For CJS this is tsup's experimental CJS splitting, which
  // test/package/load.test.ts checks.
  splitting: true,
  // Runtime dependencies and peer dependencies stay imports; tsup externalises
  // everything in "dependencies" and "peerDependencies" by default and this list
  // is the explicit safety net (subpaths like '@noble/hashes/sha2.js' included).
  external: [
    /^@noble\/hashes(\/|$)/,
    /^jose(\/|$)/,
    /^zod(\/|$)/,
    'express',
    'fastify',
    'fastify-plugin',
    'koa',
    'hono',
    'pg',
    /^@electric-sql\/pglite(\/|$)/,
    'nodemailer',
    /^@nestjs\//,
    'reflect-metadata',
    'rxjs',
  ],
})
