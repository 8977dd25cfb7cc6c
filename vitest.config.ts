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

export default defineConfig({
  resolve: { alias: packageAliases },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', 'bench/**'],
    environment: 'node',
    // Integration tests start Postgres clusters, SMTP servers and HTTP servers.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The default reporter prints the summary as the last lines of `npm test`.
    reporters: ['default'],
  },
})
