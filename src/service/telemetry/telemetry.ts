import type { Principal } from '../../core/entities'
import type {
  TelemetryAttributes,
  TelemetryCounter,
  TelemetryHistogram,
  TelemetryOptions,
  TelemetrySpan,
  TelemetrySpanOptions,
  TelemetryTracer,
} from './otel-api'
import { ATTRIBUTES, METRICS, SPANS } from './names'
import type { AuthObservation } from '../auth-outcome'

/** An outcome as telemetry reads it: `authenticate`'s and `connect`'s both fit. */
export interface ObservedOutcome {
  readonly ok?: boolean
  readonly statusCode?: number
  readonly reason?: string
  readonly principal?: Principal
}

/** The service's OpenTelemetry instruments and the tracer, behind calls that cost nothing to skip. */
export interface ServiceTelemetry {
  readonly tracer: TelemetryTracer | undefined
  /** Whether a span is worth starting now; see {@link createTelemetry}. */
  shouldTrace(): boolean
  /** Notes whether a span just started reaches an SDK. */
  noteSpan(span: TelemetrySpan): void
  /** The warm path: a cache hit answered synchronously. */
  cacheHit(principal: Principal): void
  /** Counts one answer of `operation`, its cache lookup, limiter refusal and, for verifications past the cache, its duration. */
  record(operation: 'authenticate' | 'connect', outcome: ObservedOutcome, observation: AuthObservation | undefined, seconds: number): void
  /** Counts one notification sent or failed. */
  notification(kind: string, result: 'sent' | 'failed'): void
  /** Counts one change of the store's delivery proof (SPEC §5.32): lost (`false`) or regained. */
  delivery(proven: boolean): void
}

/** How often, in requests, a service whose tracer reaches no SDK checks whether one has been registered since. */
export const PROBE_INTERVAL = 1000

const INVALID_TRACE_ID = '00000000000000000000000000000000'

/** Options of every span passcode-auth starts: internal spans. */
export const SPAN_OPTIONS: TelemetrySpanOptions = Object.freeze({ kind: 0 })

const freeze = (attributes: Record<string, string | number | boolean>): TelemetryAttributes => Object.freeze(attributes)
const CACHE_HIT = freeze({ [ATTRIBUTES.cacheResult]: 'hit' })
const CACHE_MISS = freeze({ [ATTRIBUTES.cacheResult]: 'miss' })
const LIMITED_BY = { address: freeze({ [ATTRIBUTES.limiterScope]: 'address' }), account: freeze({ [ATTRIBUTES.limiterScope]: 'account' }) }

// One frozen attribute set per operation and reason, made once: counting costs no allocation.
const outcomeAttributes = new Map<string, TelemetryAttributes>()
function attributesOf(operation: string, reason: string | undefined): TelemetryAttributes {
  const key = `${operation} ${reason ?? ''}`
  let attributes = outcomeAttributes.get(key)
  if (attributes === undefined) {
    attributes = freeze({
      [ATTRIBUTES.operation]: operation,
      [ATTRIBUTES.outcome]: reason === undefined ? 'success' : 'failure',
      ...(reason === undefined ? {} : { [ATTRIBUTES.reason]: reason }),
    })
    outcomeAttributes.set(key, attributes)
  }
  return attributes
}
const AUTHENTICATE_SUCCESS = attributesOf('authenticate', undefined)

/** Sets the attributes of an `authenticate` span that say who called, never with what. */
export function annotatePrincipal(span: TelemetrySpan, principal: Principal): void {
  span.setAttribute(ATTRIBUTES.accountId, principal.accountId)
  span.setAttribute(ATTRIBUTES.passcodeKind, principal.kind)
  if (principal.kind === 'account') span.setAttribute(ATTRIBUTES.passcodeId, principal.passcodeId)
}

/** Sets a finished operation's outcome on its span; 503 and 504 mark the span as an error. */
export function annotateOutcome(span: TelemetrySpan, outcome: ObservedOutcome): void {
  span.setAttribute(ATTRIBUTES.outcome, outcome.reason === undefined ? 'success' : 'failure')
  if (outcome.reason !== undefined) span.setAttribute(ATTRIBUTES.reason, outcome.reason)
  if (outcome.statusCode !== undefined) span.setAttribute(ATTRIBUTES.statusCode, outcome.statusCode)
  if (outcome.statusCode !== undefined && outcome.statusCode >= 500) span.setStatus({ code: 2 })
}

/**
 * The telemetry of one service from the `telemetry` option, or `undefined` without one.
 *
 * Spans are started only while the tracer reaches an SDK: a span that records, or
 * one with a real trace ID (sampled out). Without an SDK, `@opentelemetry/api` hands
 * out non-recording spans with an all-zero trace ID; the service then starts a span
 * once per {@link PROBE_INTERVAL} requests to see whether an SDK has been registered
 * since, so that a host with OpenTelemetry installed but not set up pays for counting
 * only (no span, no clock read on a cache hit).
 */
export function createTelemetry(options: TelemetryOptions | undefined): ServiceTelemetry | undefined {
  if (options === undefined) return undefined
  const { tracer, meter } = options
  const counter = (name: string, description: string, unit: string): TelemetryCounter | undefined => meter?.createCounter(name, { description, unit })
  const outcomes = counter(
    METRICS.outcomes,
    'Answers of authenticate (every credential check) and connect, by outcome and failure reason',
    '{request}',
  )
  const cacheLookups = counter(METRICS.cacheLookups, 'Verification cache lookups, by result (hit or miss)', '{lookup}')
  const notifications = counter(METRICS.notifications, 'Expiry notifications sent or failed, by kind', '{notification}')
  const deliveryChanges = counter(
    METRICS.deliveryChanges,
    "Changes of the store's proof that it hears other instances' invalidations: lost (proven=false, caches not trusted) or regained",
    '{change}',
  )
  const limiterRefusals = counter(
    METRICS.limiterRefusals,
    'Requests the brute-force limiter refused with 429, by the limit that refused',
    '{request}',
  )
  const verifyDuration: TelemetryHistogram | undefined = meter?.createHistogram(METRICS.verifyDuration, {
    description: 'Time to verify credentials the cache did not hold: hashing and the store lookup',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
  })

  let tracing = false
  let countdown = 1
  const shouldTrace = (): boolean => {
    if (tracing) return true
    if (tracer === undefined || --countdown > 0) return false
    countdown = PROBE_INTERVAL
    return true
  }
  const noteSpan = (span: TelemetrySpan): void => {
    tracing = span.isRecording() || span.spanContext().traceId !== INVALID_TRACE_ID
  }

  return {
    tracer,
    shouldTrace,
    noteSpan,
    cacheHit(principal) {
      cacheLookups?.add(1, CACHE_HIT)
      outcomes?.add(1, AUTHENTICATE_SUCCESS)
      if (!shouldTrace()) return
      const span = tracer!.startSpan(SPANS.authenticate, SPAN_OPTIONS)
      noteSpan(span)
      if (span.isRecording()) {
        annotatePrincipal(span, principal)
        span.setAttribute(ATTRIBUTES.cacheHit, true)
        span.setAttribute(ATTRIBUTES.outcome, 'success')
      }
      span.end()
    },
    record(operation, outcome, observation, seconds) {
      outcomes?.add(1, attributesOf(operation, outcome.reason))
      if (observation === undefined) return
      if (observation.cache !== undefined) cacheLookups?.add(1, observation.cache === 'hit' ? CACHE_HIT : CACHE_MISS)
      if (observation.cache === 'miss') verifyDuration?.record(seconds, attributesOf(operation, outcome.reason))
      if (observation.limitedBy !== undefined) limiterRefusals?.add(1, LIMITED_BY[observation.limitedBy])
    },
    notification(kind, result) {
      notifications?.add(1, freeze({ [ATTRIBUTES.notificationKind]: kind, [ATTRIBUTES.notificationResult]: result }))
    },
    delivery(proven) {
      deliveryChanges?.add(1, freeze({ [ATTRIBUTES.deliveryProven]: proven }))
    },
  }
}
