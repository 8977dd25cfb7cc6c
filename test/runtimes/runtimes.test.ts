import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HTTP_CASES } from '../conformance/http'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { sendRaw, type RawResponse } from '../http/raw-client'
import { runtimeBinary, type RuntimeName } from './binaries'
import { bundleHost, startRuntimeHost, type HostSetup, type RuntimeHost } from './runtime-host'

/**
 * passcode-auth/fetch and passcode-auth/hono under Bun and Deno, proven rather than
 * assumed: test/runtimes/host.ts runs under each runtime's own server (`Bun.serve`,
 * `Deno.serve`) with the memory store and with PostgreSQL through `pg`, and the HTTP
 * conformance table (test/conformance/http.ts: connect, the protected route, methods,
 * header hygiene, storage failures) is sent to it over a real socket and must be
 * answered byte for byte as on Node.
 *
 * The binaries come from the npm registry (`bash scripts/install-runtimes.sh`, which
 * .ci/run calls). Under CI=true a missing runtime fails; elsewhere its tests are
 * skipped with a line saying why. PostgreSQL hosts take a database of the run's shared
 * server (test/helpers/shared-postgres.ts; or DATABASE_URL), a schema each, and are
 * skipped, with the reason, without PostgreSQL.
 */
const CI = process.env.CI === 'true'
const postgres = postgresAvailability()
const SETUPS: readonly Omit<HostSetup, 'databaseUrl' | 'schema'>[] = [
  { app: 'fetch', store: 'memory' },
  { app: 'hono', store: 'memory' },
  { app: 'fetch', store: 'postgres' },
  { app: 'hono', store: 'postgres' },
]

let bundle: Awaited<ReturnType<typeof bundleHost>> | undefined
let database: TestPostgres | undefined
beforeAll(async () => {
  bundle = await bundleHost()
  if (postgres.available) database = await sharedTestPostgres()
})
afterAll(async () => {
  bundle?.remove()
  await database?.stop()
})

/** The parts of an answer the conformance suite compares. */
function wire(response: RawResponse) {
  return {
    status: response.status,
    body: response.body.toString('utf8'),
    'content-type': response.headers['content-type'],
    'cache-control': response.headers['cache-control'],
    sunset: response.headers.sunset,
  }
}

describe.each(['bun', 'deno'] as const)('%s', (runtime: RuntimeName) => {
  const binary = runtimeBinary(runtime)
  if (!binary.available) {
    if (CI) it(`has its binary installed (CI=true)`, () => expect.fail(binary.reason))
    else {
      console.log(`skipping the ${runtime} tests: ${binary.reason}`)
      it.skip(`runs the HTTP suite (${binary.reason})`, () => {})
    }
    return
  }

  describe.each(SETUPS.map((setup) => [`${setup.app} on the ${setup.store} store`, setup] as const))('%s', (_, setup) => {
    if (setup.store === 'postgres' && !postgres.available) {
      if (CI) it('has PostgreSQL (CI=true)', () => expect.fail(postgres.reason))
      else it.skip(`runs the HTTP suite (${postgres.reason})`, () => {})
      return
    }
    let host: RuntimeHost

    beforeAll(async () => {
      let schema: string | undefined
      if (setup.store === 'postgres') schema = `rt_${runtime}_${setup.app}`
      host = await startRuntimeHost(runtime, binary.path, bundle!.path, { ...setup, databaseUrl: database?.connectionString, schema })
    }, 120_000)
    afterAll(async () => {
      await host?.stop()
      if (setup.store === 'postgres' && database !== undefined) {
        const client = new pg.Client({ connectionString: database.connectionString })
        await client.connect()
        await client.query(`DROP SCHEMA IF EXISTS rt_${runtime}_${setup.app} CASCADE`)
        await client.end()
      }
    })

    it('runs under the runtime it was started with', () => {
      expect(host.runtime.startsWith(`${runtime} `)).toBe(true)
    })

    it.each(HTTP_CASES.map((testCase) => [testCase.name, testCase] as const))('%s', async (_, testCase) => {
      const failures = testCase.storage !== undefined || testCase.partners !== undefined
      if (failures) await host.setFailures(testCase.storage ?? 'normal', testCase.partners ?? 'normal')
      let response: RawResponse
      try {
        response = await sendRaw(host.port, testCase.request(host.fixture))
      } finally {
        if (failures) await host.setFailures('normal', 'normal')
      }
      const expected = testCase.expected(host.fixture)
      expect(wire(response)).toEqual({
        status: expected.status,
        body: expected.body,
        'content-type': expected.headers['content-type'],
        'cache-control': expected.headers['cache-control'],
        sunset: expected.sunset ?? undefined,
      })
      expect(response.body.equals(Buffer.from(expected.body, 'utf8'))).toBe(true)
      if (expected.allow !== undefined) expect(response.headers.allow).toBe(expected.allow)
    })
  })
})
