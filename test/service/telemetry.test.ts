import { context, metrics, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, generatePasscode, type PasscodeAuthOptions, type PasscodeStore } from '../../src/index'
import { memoryMailer, memoryStore } from '../../src/memory'
import { DAY_MS } from '../../src/core/time'
import { PROBE_INTERVAL } from '../../src/service/telemetry/telemetry'
import { admin, manualClock } from '../helpers/service'

/**
 * The `telemetry` option with the OpenTelemetry SDK's in-memory exporters: the spans
 * of authenticate, connect and storage calls with their attributes and parents, the
 * metrics (outcomes by reason, cache lookups, the verification histogram, limiter
 * refusals, notifications), nothing secret in any of it, and a tracer that reaches
 * no SDK costing no spans until one is registered.
 */
const spans = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
let metricExporter: InMemoryMetricExporter
let reader: PeriodicExportingMetricReader
let meterProvider: MeterProvider
const contextManager = new AsyncLocalStorageContextManager()

beforeAll(() => {
  // The SDK's setup in a host: a context manager, so that storage spans find their parent.
  context.setGlobalContextManager(contextManager.enable())
})
afterAll(() => {
  context.disable()
  trace.disable()
})
afterEach(async () => {
  spans.reset()
  await meterProvider?.shutdown()
})

function setup(options: Partial<PasscodeAuthOptions> = {}) {
  // A fresh exporter each time: shutting the previous provider down shut its exporter.
  metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
  meterProvider = new MeterProvider({ readers: [reader] })
  const clock = manualClock()
  const auth = createPasscodeAuth({
    store: memoryStore(),
    partners: ['Acme'],
    clock,
    telemetry: { tracer: tracerProvider.getTracer('passcode-auth-test'), meter: meterProvider.getMeter('passcode-auth-test') },
    ...options,
  })
  return { auth, clock }
}

/** Every data point of one metric, as [attributes, value] pairs. */
async function points(name: string): Promise<[Record<string, unknown>, unknown][]> {
  await reader.forceFlush()
  const latest = metricExporter.getMetrics().at(-1)
  const metric = latest?.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name)
  return (metric?.dataPoints ?? []).map((point: DataPoint<unknown>) => [point.attributes as Record<string, unknown>, point.value])
}
const sumOf = async (name: string, attributes: Record<string, unknown>): Promise<number> =>
  (await points(name)).filter(([a]) => Object.entries(attributes).every(([k, v]) => a[k] === v)).reduce((sum, [, v]) => sum + (v as number), 0)

const finished = (): ReadableSpan[] => spans.getFinishedSpans()
const named = (name: string) => finished().filter((span) => span.name === name)
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

describe('telemetry: spans', () => {
  it('an authenticate past the cache: one span with who called and why, the store lookup as its child', async () => {
    const { auth } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    spans.reset()
    expect((await auth.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)

    const [span] = named('passcode_auth.authenticate')
    expect(span?.attributes).toEqual({
      'passcode_auth.account.id': 'acc_1',
      'passcode_auth.passcode.kind': 'account',
      'passcode_auth.passcode.id': passcode.id,
      'passcode_auth.cache.hit': false,
      'passcode_auth.outcome': 'success',
    })
    const [lookup] = named('passcode_auth.store.findCredentialByHash')
    expect(lookup).toBeDefined()
    expect(parentOf(lookup!)).toBe(span!.spanContext().spanId)
    expect(lookup!.spanContext().traceId).toBe(span!.spanContext().traceId)
  })

  it('a cache hit: a span saying so, and no storage call', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    await auth.authenticate({ accountId: 'acc_1', passcode: value })
    spans.reset()
    await auth.authenticate({ accountId: 'acc_1', passcode: value })
    expect(named('passcode_auth.authenticate').map((span) => span.attributes['passcode_auth.cache.hit'])).toEqual([true])
    expect(named('passcode_auth.store.findCredentialByHash')).toEqual([])
  })

  it('a refusal: the reason and the account ID as sent, not an error status', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    spans.reset()
    await auth.authenticate({ accountId: 'acc_2', passcode: value })
    const [span] = named('passcode_auth.authenticate')
    expect(span?.attributes).toMatchObject({
      'passcode_auth.account.id': 'acc_2',
      'passcode_auth.outcome': 'failure',
      'passcode_auth.reason': 'wrong_account',
      'http.response.status_code': 400,
    })
    expect(span?.status.code).toBe(0)
  })

  it('storage failing: 503, the span and the store span marked as errors, with the error class only', async () => {
    const failing: PasscodeStore = new Proxy(memoryStore(), {
      get: (target, property, receiver) =>
        property === 'findCredentialByHash'
          ? () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:5432'))
          : Reflect.get(target, property, receiver),
    })
    const { auth } = setup({ store: failing })
    // Well-formed (its checksum holds), so it reaches the store.
    expect((await auth.authenticate({ accountId: 'acc_1', passcode: generatePasscode() })).ok).toBe(false)
    const [span] = named('passcode_auth.authenticate')
    expect(span?.attributes['passcode_auth.reason']).toBe('storage_error')
    expect(span?.status.code).toBe(2)
    const [lookup] = named('passcode_auth.store.findCredentialByHash')
    expect(lookup?.status.code).toBe(2)
    expect(lookup?.attributes['error.type']).toBe('Error')
    expect(JSON.stringify(finished().map((s) => [s.attributes, s.status, s.events]))).not.toContain('ECONNREFUSED')
  })

  it('connect: its span is the parent of the authenticate span; the partner on success', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    spans.reset()
    const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
    expect((await auth.connect({ headers, partner: ' ACME ' })).statusCode).toBe(200)
    expect((await auth.connect({ headers, partner: 'globex' })).statusCode).toBe(403)
    const [ok, refused] = named('passcode_auth.connect')
    expect(ok?.attributes).toEqual({ 'passcode_auth.outcome': 'success', 'http.response.status_code': 200, 'passcode_auth.partner': 'acme' })
    expect(refused?.attributes).toEqual({
      'passcode_auth.outcome': 'failure',
      'passcode_auth.reason': 'partner_not_whitelisted',
      'http.response.status_code': 403,
    })
    const inner = named('passcode_auth.authenticate')
    expect(inner.map(parentOf)).toEqual([ok!.spanContext().spanId, refused!.spanContext().spanId])
  })

  it('management calls: each storage call a span of its own', async () => {
    const { auth } = setup()
    await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    expect(named('passcode_auth.store.createAccountPasscode')).toHaveLength(1)
  })

  it('never a passcode value, a hash or a header name in any span or metric', async () => {
    const { auth } = setup({ rateLimit: { maxFailuresPerAddress: 2 } })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }
    await auth.connect({ headers, partner: 'acme', clientAddress: '10.0.0.1' })
    for (let i = 0; i < 4; i++)
      await auth.authenticate({ accountId: 'acc_1', passcode: `${value.slice(0, -1)}${value.endsWith('x') ? 'y' : 'x'}`, clientAddress: '10.0.0.1' })
    await reader.forceFlush()
    const everything = JSON.stringify([finished().map((s) => [s.name, s.attributes, s.events, s.status]), metricExporter.getMetrics()])
    expect(everything).not.toContain(value)
    expect(everything).not.toContain(value.slice(4, 20))
    expect(everything.toLowerCase()).not.toContain('x-service-passcode')
  })
})

describe('telemetry: metrics', () => {
  it('outcomes by operation and reason, cache lookups, and the verification histogram for cold verifications only', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    await auth.authenticate({ accountId: 'acc_1', passcode: value }) // miss, success
    await auth.authenticate({ accountId: 'acc_1', passcode: value }) // hit
    await auth.authenticate({ accountId: 'acc_1', passcode: value }) // hit
    await auth.authenticate({ accountId: 'acc_9', passcode: value }) // miss (another account's key), wrong_account
    await auth.authenticate({ accountId: 'acc_1', passcode: '' }) // malformed: no cache lookup

    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.operation': 'authenticate', 'passcode_auth.outcome': 'success' })).toBe(3)
    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.reason': 'wrong_account' })).toBe(1)
    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.reason': 'malformed_credentials' })).toBe(1)
    expect(await sumOf('passcode_auth.cache.lookups', { 'passcode_auth.cache.result': 'hit' })).toBe(2)
    expect(await sumOf('passcode_auth.cache.lookups', { 'passcode_auth.cache.result': 'miss' })).toBe(2)
    const histogram = (await points('passcode_auth.verify.duration')).map(([attributes, v]) => [
      attributes['passcode_auth.outcome'],
      (v as Histogram).count,
    ])
    expect(histogram.sort()).toEqual([
      ['failure', 1],
      ['success', 1],
    ])
  })

  it('connect answers by reason', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
    await auth.connect({ headers, partner: 'acme' })
    await auth.connect({ headers, partner: undefined })
    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.operation': 'connect', 'passcode_auth.outcome': 'success' })).toBe(1)
    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.operation': 'connect', 'passcode_auth.reason': 'missing_partner' })).toBe(1)
    // Each connect also checked the credentials once.
    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.operation': 'authenticate' })).toBe(2)
  })

  it('limiter refusals by the limit that refused', async () => {
    const { auth } = setup({ rateLimit: { maxFailuresPerAddress: 2, maxFailuresPerAccount: false } })
    for (let i = 0; i < 5; i++) await auth.authenticate({ accountId: 'acc_1', passcode: 'nope', clientAddress: '10.0.0.1' })
    expect(await sumOf('passcode_auth.limiter.refusals', { 'passcode_auth.limiter.scope': 'address' })).toBe(3)
    expect(await sumOf('passcode_auth.outcomes', { 'passcode_auth.reason': 'rate_limited' })).toBe(3)
  })

  it('notifications sent and failed, by kind', async () => {
    const mailer = memoryMailer()
    let fail = false
    const flaky = { send: (message: Parameters<typeof mailer.send>[0]) => (fail ? Promise.reject(new Error('smtp down')) : mailer.send(message)) }
    const { auth, clock } = setup({ mailer: flaky, recipients: () => ['ops@example.test'] })
    await auth.passcodes.create(admin, 'acc_1', { name: 'Soon', expiry: 10 })
    fail = true
    await auth.notifyExpirations()
    fail = false
    await auth.notifyExpirations()
    clock.advance(11 * DAY_MS)
    await auth.notifyExpirations()
    expect(
      await sumOf('passcode_auth.notifications', {
        'passcode_auth.notification.kind': 'expiring_soon',
        'passcode_auth.notification.result': 'failed',
      }),
    ).toBe(1)
    expect(
      await sumOf('passcode_auth.notifications', { 'passcode_auth.notification.kind': 'expiring_soon', 'passcode_auth.notification.result': 'sent' }),
    ).toBe(1)
    expect(
      await sumOf('passcode_auth.notifications', { 'passcode_auth.notification.kind': 'expired', 'passcode_auth.notification.result': 'sent' }),
    ).toBe(1)
  })
})

describe('telemetry: OpenTelemetry installed but no SDK registered', () => {
  it('starts no span until a tracer provider is registered, then within one probe interval', async () => {
    const { auth } = setup({ telemetry: { tracer: trace.getTracer('passcode-auth-test'), meter: metrics.getMeter('passcode-auth-test') } })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    for (let i = 0; i < 10; i++) await auth.authenticate({ accountId: 'acc_1', passcode: value })
    expect(finished()).toEqual([])

    trace.setGlobalTracerProvider(tracerProvider)
    try {
      for (let i = 0; i <= PROBE_INTERVAL; i++) await auth.authenticate({ accountId: 'acc_1', passcode: value })
      // From the probe on, every request has its span.
      const count = named('passcode_auth.authenticate').length
      expect(count).toBeGreaterThan(0)
      await auth.authenticate({ accountId: 'acc_1', passcode: value })
      expect(named('passcode_auth.authenticate')).toHaveLength(count + 1)
    } finally {
      trace.disable()
    }
  })

  it('rejects a telemetry option that is not a tracer and a meter', () => {
    expect(() => createPasscodeAuth({ store: memoryStore(), telemetry: { tracer: {} as never } })).toThrow(/telemetry\.tracer/)
    expect(() => createPasscodeAuth({ store: memoryStore(), telemetry: { meter: 'otel' as never } })).toThrow(/telemetry\.meter/)
    expect(() => createPasscodeAuth({ store: memoryStore(), telemetry: { logger: {} } as never })).toThrow(/telemetry/)
  })
})
