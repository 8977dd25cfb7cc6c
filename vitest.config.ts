import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { relative } from 'node:path'
import { globSync } from 'tinyglobby'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { NODE_FLAGS } from './test/helpers/node-flags.ts'
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
 * test/browser/) and the packed tarballs (npm's packing, a first start from it, the
 * documentation's blocks in a new project: what they check is the package and the
 * documents; the library itself is tested on each Node by the rest of the suite).
 * `.ci/run` runs the whole suite on Node 20, then again on Node 22 and 24 with
 * `PASSCODE_AUTH_TESTS=node-dependent`, which leaves these out.
 */
export const nodeIndependentTests = [
  'test/browser/**',
  'test/**/*.browser.test.ts',
  'test/package/tarball.test.ts',
  'test/package/doc-blocks.test.ts',
  'test/package/connect-client.test.ts',
  'test/package/published-links.test.ts',
]

/**
 * Test files that run in a fresh worker each (vitest's `isolate`, the default): those
 * that change process-wide state and cannot give it back, such as a module mock (the
 * mocked module would stay in the worker's module cache). Every other file shares its
 * worker, and the modules loaded in it, with the files run there before it (`isolate:
 * false`): zod, the frameworks, PGlite and src/ load once per worker instead of once per
 * file, which halves what a small file costs. A shared file may change an environment
 * variable through `vi.stubEnv`, add a process listener or set OpenTelemetry's globals
 * only if it gives the change back itself (`vi.unstubAllEnvs()`, `process.off` with the
 * same function, `trace.disable()`). test/architecture/test-isolation.test.ts fails when
 * a file that is not listed here makes a change it does not give back. The in-process
 * CLI (test/cli/cli-process.ts) sets the umask only while a command runs; each shared
 * file must leave the umask as it found it (test/helpers/umask-unchanged.ts).
 */
export const isolatedTests = ['test/http/warm-path.test.ts']

/**
 * The files that take longest in a full run on a 2-core machine (7 to 170 s each, waiting
 * on a child: npm, tsc, PostgreSQL, Chromium, Bun and Deno, or on a fault's bound, or
 * sharing the cores with the files beside them), longest first, as measured in a full
 * run. Started first, they run beside the many short files instead of after them, where
 * each would hold the run open on one core. None of them is a unit test (those start
 * last, see {@link projectOrder}). Only an order: a file missing here, or listed and
 * since made quick, costs time, not correctness. To see the durations: `npx vitest run --reporter=json
 * --outputFile=durations.json` (each file's endTime − startTime).
 */
export const slowTests = [
  // Packs the package (test/helpers/packed-tarball.ts: two builds), installs it and its peers, two tsc programs, ~30 blocks.
  'test/package/doc-blocks.test.ts',
  // Builds the previous version from git (npm run build, once per commit and machine) before its traffic.
  'test/upgrade/mixed-version.test.ts',
  'test/stores/postgres.test.ts',
  'test/stores/pglite.test.ts',
  'test/dashboard/axe.browser.test.ts',
  'test/stores/pgbouncer.test.ts',
  'test/stores/audit-sql.test.ts',
  'test/dashboard/management-conformance.test.ts',
  'test/runtimes/runtimes.test.ts',
  'test/cli/data-folder.test.ts',
  'test/soak/fleet-smoke.test.ts',
  'test/types/type-tests.test.ts',
  'test/package/tarball.test.ts',
  'test/service/audit.test.ts',
  'test/http/conformance.test.ts',
  'test/soak/soak-smoke.test.ts',
  'test/dashboard/leaks.browser.test.ts',
  'test/dashboard/truth.browser.test.ts',
  'test/dashboard/browser.test.ts',
  'test/cli/signals.test.ts',
  'test/dashboard/find.browser.test.ts',
  'test/faults/silent-cut.test.ts',
  // Three instances on PostgreSQL and PgBouncer spending one passcode's credits (37 s alone).
  'test/faults/limits-fleet.test.ts',
  // Two PgBouncer restarts, each with 15 s of cache-miss traffic after it (18 s alone).
  'test/faults/pgbouncer-restart.test.ts',
  // The hostile-input corpus: 10 000 cases under CI=true (the framework files run a sample of it).
  'test/http/hostile-input-node.test.ts',
  'test/dashboard/activity.browser.test.ts',
  'test/readme/blocks.test.ts',
  'test/examples/examples.test.ts',
  'test/http/no-framework-import.test.ts',
  'test/http/hostile-input-fetch.test.ts',
  'test/http/hostile-input-koa.test.ts',
  'test/dashboard/minors.browser.test.ts',
  'test/dashboard/focus.browser.test.ts',
  'test/dashboard/restrictions.browser.test.ts',
  'test/service/notify-processes.test.ts',
  'test/http/hostile-input-fastify.test.ts',
  'test/cli/audit.test.ts',
  'test/cli/notify.test.ts',
  'test/faults/hung-balancer.test.ts',
  'test/cli/leaks.test.ts',
  'test/cli/webhooks.test.ts',
  'test/fetch/conformance.test.ts',
  'test/cli/usage.test.ts',
  'test/nestjs/hostile-input.test.ts',
  'test/service/leaks/leak-processes.test.ts',
  'test/cli/first-start.test.ts',
  'test/client/e2e.test.ts',
  'test/cli/postgres.test.ts',
  'test/package/load.test.ts',
  'test/cli/keys.test.ts',
  'test/stores/secrets-dump.test.ts',
  'test/dashboard/webhooks.browser.test.ts',
  'test/docs/openapi-lint.test.ts',
  'test/http/hostile-input-express.test.ts',
  'test/http/hostile-input-hono.test.ts',
  'test/nestjs/conformance.test.ts',
]

/**
 * The unit tests, `npm run test:unit` (vitest's `unit` project), for the edit-test
 * loop: core, protocol, the service on the memory store, the HTTP layer through
 * in-process requests. They need no server, browser, database or child process:
 * test/helpers/no-server-or-child.ts, one of their setup files, fails a unit file that
 * starts a child process or listens on a socket, in `npm test` too. They share workers
 * as the `shared` files do. A new file in these folders is a unit test unless it is
 * listed in {@link notUnitTests}.
 */
export const unitTests = [
  'test/core/**/*.test.ts',
  'test/protocol/**/*.test.ts',
  'test/service/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/fetch/**/*.test.ts',
  'test/client/**/*.test.ts',
  'test/dashboard/*.test.ts',
  'test/docs/*.test.ts',
  'test/secretlint/*.test.ts',
  'test/stores/memory.test.ts',
  'test/stores/named-statement.test.ts',
  'test/stores/pg-pool-connections.test.ts',
]

/** The files in {@link unitTests}' folders that start a server, a database or a child process. */
export const notUnitTests = [
  'test/client/check.test.ts',
  'test/client/e2e.test.ts',
  'test/client/expires-at.test.ts',
  'test/client/faults.test.ts',
  'test/client/responses.test.ts',
  'test/client/secrets.test.ts',
  'test/dashboard/browser.test.ts',
  'test/dashboard/axe.browser.test.ts',
  'test/dashboard/find.browser.test.ts',
  'test/dashboard/leaks.browser.test.ts',
  'test/dashboard/minors.browser.test.ts',
  'test/dashboard/focus.browser.test.ts',
  'test/dashboard/truth.browser.test.ts',
  'test/dashboard/activity.browser.test.ts',
  'test/dashboard/webhooks.browser.test.ts',
  'test/dashboard/policy.browser.test.ts',
  'test/dashboard/restrictions.browser.test.ts',
  'test/dashboard/list-restrictions.browser.test.ts',
  'test/dashboard/management-conformance.test.ts',
  'test/docs/openapi-lint.test.ts',
  'test/fetch/conformance.test.ts',
  'test/http/conformance.test.ts',
  'test/http/enumeration.test.ts',
  'test/http/hostile-input-express.test.ts',
  'test/http/hostile-input-fastify.test.ts',
  'test/http/hostile-input-fetch.test.ts',
  'test/http/hostile-input-hono.test.ts',
  'test/http/hostile-input-koa.test.ts',
  'test/http/hostile-input-node.test.ts',
  'test/http/kept-alive-client.test.ts',
  'test/http/leak-report-adapters.test.ts',
  'test/http/no-framework-import.test.ts',
  'test/http/node-mounts.test.ts',
  'test/http/node-request.test.ts',
  'test/http/write-result.test.ts',
  // Its cases run on PGlite (one database, a schema per case) as well as on the memory store.
  'test/service/audit.test.ts',
  'test/service/leaks/leak-processes.test.ts',
  'test/service/notify-postgres.test.ts',
  'test/service/notify-processes.test.ts',
  'test/service/notify-scheduler.test.ts',
  'test/service/secrets-scenario.test.ts',
]

const root = fileURLToPath(new URL('.', import.meta.url))

const unitFiles = globSync(unitTests, { cwd: root, ignore: notUnitTests })

/** The projects below, in the order their files are queued. */
const projectOrder = ['isolated', 'shared', 'unit']

/**
 * Vitest's order (files that failed last time first, then the longest last time, from
 * its cache; without a cache, the largest files first), except that on a run with no
 * durations to go by (a fresh clone, as in CI) the {@link slowTests} start first; and
 * the files of one project stay together, in {@link projectOrder}. Vitest keeps a
 * worker of an `isolate: false` project for the next file only when the next file
 * queued is of the same project; otherwise it stops the worker, and a later file of
 * that project starts a new one and imports its modules again (a second or two of CPU
 * each time). Together, a run starts one worker for the isolated file, four for the
 * shared files and, once those are all started, four for the unit files.
 */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const file = (spec: TestSpecification) => relative(root, spec.moduleId)
    const cached = sorted.every((spec) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${file(spec)}`) !== undefined)
    const slowRank = (spec: TestSpecification) => {
      if (cached) return 0
      const index = slowTests.indexOf(file(spec))
      return index === -1 ? slowTests.length : index
    }
    const projectRank = (spec: TestSpecification) => projectOrder.indexOf(spec.project.name)
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => projectRank(a) - projectRank(b) || slowRank(a) - slowRank(b))
  }
}

const excluded = ['**/node_modules/**', 'dist/**', 'bench/**', ...(process.env.PASSCODE_AUTH_TESTS === 'node-dependent' ? nodeIndependentTests : [])]

export default defineConfig({
  resolve: { alias: packageAliases },
  test: {
    projects: [
      { extends: true, test: { name: 'isolated', include: isolatedTests, exclude: excluded } },
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...excluded, ...isolatedTests, ...unitFiles],
          isolate: false,
          setupFiles: ['test/helpers/umask-unchanged.ts'],
          // The run's shared PostgreSQL server, started by the first file that wants a database (test/helpers/shared-postgres.ts).
          globalSetup: ['test/helpers/shared-postgres-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: unitFiles,
          exclude: [...excluded, ...isolatedTests],
          isolate: false,
          setupFiles: ['test/helpers/umask-unchanged.ts', 'test/helpers/no-server-or-child.ts'],
        },
      },
    ],
    environment: 'node',
    // Integration tests start Postgres clusters, SMTP servers and HTTP servers.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Every worker compiles PGlite's WebAssembly with V8's baseline compiler only (see
    // test/helpers/node-flags.ts): about 1.5 CPU-s less per file that starts a PGlite.
    execArgv: [...NODE_FLAGS],
    // Test files in parallel: twice the cores, between 4 and 8. Vitest's default (cores
    // - 1) runs one file at a time on a 2-core machine. Measured there when the suite was
    // CPU-bound: quiet, one or four files at a time took about the same (337 s, 356 s);
    // shared with other work, four took about 10 minutes where one took about 24. The
    // suite now also waits (on child processes, Chromium, faults' bounds): a run of 189 s
    // used 216 CPU-s as /usr/bin/time counts them, and Chromium's pages and the database
    // servers, which it does not count, about 70 more (a cgroup's total: ~250 CPU-s), so
    // most of the two cores. More than four at a time is not measured yet.
    maxWorkers: Math.min(8, Math.max(4, 2 * availableParallelism())),
    sequence: { sequencer: SlowFirstSequencer },
    // The default reporter prints the summary as the last lines of `npm test`.
    reporters: ['default'],
  },
})
