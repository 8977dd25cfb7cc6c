import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { generatePasscode } from '../../src/index'
import { migrate } from '../../src/stores/postgres/index'
import type { RunningApp } from '../conformance/http'
import { eventually } from '../conformance/store/fixtures'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { admin } from '../helpers/service'
import { expressApp, listen } from '../http/frameworks'
import { sendRaw } from '../http/raw-client'
import { uniqueSchema } from '../stores/sql-fixture'
import express from 'express'
import { pgInstance, sleep } from './pg-instances'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy'

/**
 * The connection to PostgreSQL breaks while a request is being served: the backend is
 * killed in the middle of the verification query, or the TCP connection is cut. The
 * request answers 503 (never 500, never a hang), the pool replaces the connection and
 * the next request succeeds. And when the listening connection is the one that
 * breaks, the invalidations published meanwhile are lost, so once it listens again
 * the store makes the verification cache drop everything.
 */

const availability = postgresAvailability()
const title = availability.available ? 'connection drops (PostgreSQL)' : `connection drops (skipped: ${availability.reason})`

const SERVER_ERROR_503 = '{"status":"fail","error":"Server Error","code":503}'
const SUCCESS = '{"status":"success","message":"Authorised Successfully."}'
const INVALID = '{"status":"fail","error":"Invalid Credentials","code":400}'

describe.skipIf(!availability.available)(title, () => {
  let server: TestPostgres
  let main: pg.Pool
  let schema: string
  const opened: { close(): Promise<void> }[] = []

  beforeAll(async () => {
    // A database of the run's shared server: the cases kill their own backends and cut their own proxies, never the server.
    server = await sharedTestPostgres()
    main = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
    main.on('error', () => {})
  })
  afterEach(async () => {
    for (const resource of opened.splice(0).reverse()) await resource.close()
  })
  afterAll(async () => {
    await main?.end()
    await server?.stop()
  })

  /** A migrated schema, instance A over `connectionString` (served over HTTP by Express 5), instance B direct. */
  const setup = async (connectionString: string, timeoutMs: number) => {
    schema = uniqueSchema()
    await migrate(main, { schema })
    const a = pgInstance(connectionString, schema, { timeoutMs, cache: { ttlMs: 60_000 } })
    const b = pgInstance(server.connectionString, schema, { timeoutMs, cache: { ttlMs: 60_000 } })
    opened.push(a, b)
    await Promise.all([a.store.ready(), b.store.ready()])
    const app = await listen(expressApp(express, a.auth))
    opened.push(app)
    const { value: active } = await a.auth.passcodes.create(admin, 'acc_1', { name: 'Partner', expiry: 90 })
    return { a, b, app, active }
  }

  const connect = async (app: RunningApp, passcode: string) => {
    const response = await sendRaw(app.port, {
      target: '/v1/connect?partner=acme',
      headers: [
        ['X-Service-Account-Id', 'acc_1'],
        ['X-Service-Passcode', passcode],
      ],
    })
    return { status: response.status, body: response.body.toString('utf8') }
  }

  it('a backend killed (pg_terminate_backend) during the verification query: 503, then the pool recovers', async () => {
    const { app, active } = await setup(server.connectionString, 10_000)
    // An exclusive lock keeps the verification query waiting, so it is surely in flight when killed.
    const locker = new pg.Client({ connectionString: server.connectionString })
    locker.on('error', () => {})
    await locker.connect()
    opened.push({ close: () => locker.end() })
    await locker.query('BEGIN')
    await locker.query(`LOCK TABLE ${schema}.account_passcodes IN ACCESS EXCLUSIVE MODE`)

    const answer = connect(app, generatePasscode())
    let pid: number | undefined
    await eventually(async () => {
      const { rows } = await main.query(
        `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%' || $1::text || '.account_passcodes%'`,
        [schema],
      )
      expect(rows).toHaveLength(1)
      pid = rows[0].pid
    }, 5_000)
    await main.query('SELECT pg_terminate_backend($1)', [pid])
    expect(await answer).toEqual({ status: 503, body: SERVER_ERROR_503 })

    await locker.query('ROLLBACK')
    expect(await connect(app, active)).toEqual({ status: 200, body: SUCCESS })
    expect(await connect(app, generatePasscode())).toEqual({ status: 400, body: INVALID })
  })

  it('the TCP connection cut while the query is in flight: 503, then the pool reconnects', async () => {
    const url = new URL(server.connectionString)
    const proxy: TcpProxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) })
    opened.push(proxy)
    const { app, active } = await setup(proxy.via(server.connectionString), 10_000)

    proxy.hold(true)
    const answer = connect(app, generatePasscode())
    await eventually(() => expect(proxy.heldBytes()).toBeGreaterThan(0), 5_000)
    proxy.cut()
    expect(await answer).toEqual({ status: 503, body: SERVER_ERROR_503 })

    proxy.hold(false)
    expect(await connect(app, active)).toEqual({ status: 200, body: SUCCESS })
    expect(await connect(app, generatePasscode())).toEqual({ status: 400, body: INVALID })
  })

  it('invalidations lost while the listening connection was down: the cache is dropped once it listens again', async () => {
    const url = new URL(server.connectionString)
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) })
    opened.push(proxy)
    // Only instance A goes through the proxy: its pool and its listening connection.
    const { a, b } = await setup(proxy.via(server.connectionString), 2_000)
    const { value, passcode } = await b.auth.passcodes.create(admin, 'acc_2', { name: 'Cached on A', expiry: 90 })
    expect(await a.auth.authenticate({ accountId: 'acc_2', passcode: value })).toMatchObject({ ok: true })

    proxy.refuse(true)
    proxy.cut()
    await b.auth.passcodes.delete(admin, 'acc_2', passcode.id)
    expect(await b.auth.authenticate({ accountId: 'acc_2', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
    await sleep(300)
    // The known window: while A cannot listen, nothing can tell it, and its cache still answers.
    expect(await a.auth.authenticate({ accountId: 'acc_2', passcode: value })).toMatchObject({ ok: true })
    expect(a.invalidations).not.toContainEqual({ type: 'all' })

    proxy.refuse(false)
    // Well before the cache's 60 s TTL: as soon as A listens again (its retry backoff).
    await eventually(async () => {
      expect(await a.auth.authenticate({ accountId: 'acc_2', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
    }, 10_000)
    expect(a.invalidations).toContainEqual({ type: 'all' })
    expect(a.invalidations).not.toContainEqual({ type: 'account_passcode', accountId: 'acc_2', passcodeId: passcode.id })
  })
})
