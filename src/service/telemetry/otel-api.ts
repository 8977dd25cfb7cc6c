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
  /** Sets one attribute on the span. */
  setAttribute(key: string, value: string | number | boolean): unknown
  /** Sets the span's status: 0 unset, 1 ok, 2 error. */
  setStatus(status: { code: 0 | 1 | 2; message?: string }): unknown
  /** False when no SDK records this span: passcode-auth then skips the rest of its work on it. */
  isRecording(): boolean
  /** The span's context; passcode-auth reads its trace ID. */
  spanContext(): {
    /** The trace this span belongs to. */
    traceId: string
  }
  /** Ends the span. */
  end(): void
}

/** Options of a span passcode-auth starts. */
export interface TelemetrySpanOptions {
  /** `SpanKind.INTERNAL` (0). */
  kind?: 0
  /** Attributes set when the span starts. */
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
  /** Starts a span that is not made the active one. */
  startSpan(name: string, options?: TelemetrySpanOptions): TelemetrySpan
  /**
   * Starts a span, makes it the active one while `fn` runs, and returns what `fn` returns.
   *
   * @typeParam F - the function run inside the span
   */
  startActiveSpan<F extends (span: TelemetrySpan) => unknown>(name: string, options: TelemetrySpanOptions, fn: F): ReturnType<F>
}

/** An OpenTelemetry `Counter`. */
export interface TelemetryCounter {
  /** Adds `value` to the counter, under `attributes`. */
  add(value: number, attributes?: TelemetryAttributes): void
}

/** An OpenTelemetry `Histogram`. */
export interface TelemetryHistogram {
  /** Records one measurement, under `attributes`. */
  record(value: number, attributes?: TelemetryAttributes): void
}

/** Options of an instrument passcode-auth creates. */
export interface TelemetryInstrumentOptions {
  /** What the instrument measures, for a person. */
  description?: string
  /** Its unit (UCUM), such as `ms`. */
  unit?: string
  /** Hints to the SDK. */
  advice?: {
    /** Histogram bucket boundaries. */
    explicitBucketBoundaries?: number[]
  }
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
  /** Creates a counter. */
  createCounter(name: string, options?: TelemetryInstrumentOptions): TelemetryCounter
  /** Creates a histogram. */
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
