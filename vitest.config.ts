import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { entries } from './tsup.config.ts'

// Tests may import the package by name ('passcode-auth', 'passcode-auth/memory', …),
// as README examples do; those names run against src/, not dist/, so no build is
// needed. tsconfig.json "paths" says the same for the type checker.
// test/package/ loads the built dist/ in child processes, which this does not touch.
const packageAliases = Object.entries(entries).map(([name, source]) => ({
  find: new RegExp(`^passcode-auth${name === 'index' ? '' : `/${name}`}$`),
  replacement: fileURLToPath(new URL(source, import.meta.url)),
}))

/**
 * Tests whose outcome does not depend on the Node version running the suite: the
 * browser tests (they test Chromium; name one `*.browser.test.ts` or put it under
 * test/browser/) and the packed tarball (npm's packing and a first start from it).
 * `.ci/run` runs the whole suite on Node 20, then again on Node 22 and 24 with
 * `PASSCODE_AUTH_TESTS=node-dependent`, which leaves these out.
 */
export const nodeIndependentTests = ['test/browser/**', 'test/**/*.browser.test.ts', 'test/package/tarball.test.ts']

export default defineConfig({
  resolve: { alias: packageAliases },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      'dist/**',
      'bench/**',
      ...(process.env.PASSCODE_AUTH_TESTS === 'node-dependent' ? nodeIndependentTests : []),
    ],
    environment: 'node',
    // Integration tests start Postgres clusters, SMTP servers and HTTP servers.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files in parallel: twice the cores, between 4 and 8. Vitest's default (cores
    // - 1) runs one file at a time on a 2-core machine. Measured there: quiet, one or four
    // files at a time take about the same (337 s, 356 s: the suite is CPU-bound); shared
    // with other work, four took about 10 minutes where one took about 24.
    maxWorkers: Math.min(8, Math.max(4, 2 * availableParallelism())),
    // The default reporter prints the summary as the last lines of `npm test`.
    reporters: ['default'],
  },
})
