/**
 * The few members of OpenTelemetry's `Tracer`, `Span` and `Meter` (from
 * `@opentelemetry/api`) that passcode-auth calls, written out so that nothing of
 * OpenTelemetry is imported, at run time or in the published types: a host without
 * it installed loads nothing and type-checks the same. The API's own objects fit.
 */

/** Attribute values passcode-auth sets. */
export type TelemetryAttributes = Readonly<Record<string, string | number | boolean>>

/** The part of an OpenTelemetry `Span` passcode-auth uses. */
export interface TelemetrySpan {
  setAttribute(key: string, value: string | number | boolean): unknown
  setStatus(status: { code: 0 | 1 | 2; message?: string }): unknown
  isRecording(): boolean
  spanContext(): { traceId: string }
  end(): void
}

/** Options of a span passcode-auth starts. */
export interface TelemetrySpanOptions {
  /** `SpanKind.INTERNAL` (0). */
  kind?: 0
  attributes?: TelemetryAttributes
}

/**
 * The part of an OpenTelemetry `Tracer` passcode-auth uses: `trace.getTracer(name)`.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api'
 * const tracer: TelemetryTracer = trace.getTracer('passcode-auth')
 * ```
 */
export interface TelemetryTracer {
  startSpan(name: string, options?: TelemetrySpanOptions): TelemetrySpan
  startActiveSpan<F extends (span: TelemetrySpan) => unknown>(name: string, options: TelemetrySpanOptions, fn: F): ReturnType<F>
}

/** An OpenTelemetry `Counter`. */
export interface TelemetryCounter {
  add(value: number, attributes?: TelemetryAttributes): void
}

/** An OpenTelemetry `Histogram`. */
export interface TelemetryHistogram {
  record(value: number, attributes?: TelemetryAttributes): void
}

/** Options of an instrument passcode-auth creates. */
export interface TelemetryInstrumentOptions {
  description?: string
  unit?: string
  advice?: { explicitBucketBoundaries?: number[] }
}

/**
 * The part of an OpenTelemetry `Meter` passcode-auth uses: `metrics.getMeter(name)`.
 *
 * @example
 * ```ts
 * import { metrics } from '@opentelemetry/api'
 * const meter: TelemetryMeter = metrics.getMeter('passcode-auth')
 * ```
 */
export interface TelemetryMeter {
  createCounter(name: string, options?: TelemetryInstrumentOptions): TelemetryCounter
  createHistogram(name: string, options?: TelemetryInstrumentOptions): TelemetryHistogram
}

/**
 * The `telemetry` option of `createPasscodeAuth`: an OpenTelemetry tracer and meter,
 * either or both. passcode-auth never imports `@opentelemetry/api` itself; the host
 * passes what its own copy gives. See docs/observability.md for the spans and metrics.
 *
 * @example
 * ```ts
 * import { metrics, trace } from '@opentelemetry/api'
 * const auth = createPasscodeAuth({
 *   store,
 *   telemetry: { tracer: trace.getTracer('passcode-auth'), meter: metrics.getMeter('passcode-auth') },
 * })
 * ```
 */
export interface TelemetryOptions {
  /** Spans of `authenticate`, `connect` and storage calls. */
  tracer?: TelemetryTracer
  /** Counters and the verification latency histogram. */
  meter?: TelemetryMeter
}
