import { isVisibleAscii } from '../../core/rules'
import { ATTRIBUTES, SPANS } from './names'
import type { TelemetrySpan } from './otel-api'
import type { AuthObservation } from '../auth-outcome'
import { annotateOutcome, annotatePrincipal, SPAN_OPTIONS, type ObservedOutcome, type ServiceTelemetry } from './telemetry'

/**
 * A verification as the pipeline runs it: `budget` is the request's deadline; it fills
 * in the observation when given one; `extra` is the pipeline's own, handed on as it is.
 */
export type ObservedAuthenticate<Input, Budget, Outcome, Extra> = (
  input: Input,
  budget: Budget | undefined,
  observation: AuthObservation | undefined,
  extra: Extra,
) => Promise<Outcome>

const now = (): number => performance.now()

/**
 * Wraps the service's `authenticate` (limiter included) with its telemetry: the
 * outcome counted by reason, the cache lookup, a limiter refusal, the duration of a
 * verification past the cache, and, while tracing, a `passcode_auth.authenticate` span
 * made active so that storage calls become its children. The span carries the account
 * ID, the passcode ID and kind, the reason and whether the cache held the credentials;
 * never a passcode value or a header.
 */
export function traceAuthenticate<Input extends { readonly accountId?: unknown }, Budget, Outcome extends ObservedOutcome, Extra>(
  telemetry: ServiceTelemetry,
  authenticate: ObservedAuthenticate<Input, Budget, Outcome, Extra>,
): ObservedAuthenticate<Input, Budget, Outcome, Extra> {
  async function run(input: Input, budget: Budget | undefined, extra: Extra, span: TelemetrySpan | undefined): Promise<Outcome> {
    const observation: AuthObservation = {}
    const started = now()
    let outcome: Outcome
    try {
      outcome = await authenticate(input, budget, observation, extra)
    } catch (error) {
      span?.setStatus({ code: 2 })
      span?.end()
      throw error
    }
    telemetry.record('authenticate', outcome, observation, (now() - started) / 1000)
    if (span !== undefined) {
      if (span.isRecording()) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass no input
        const accountId = input?.accountId
        if (outcome.principal !== undefined) annotatePrincipal(span, outcome.principal)
        else if (typeof accountId === 'string' && isVisibleAscii(accountId)) span.setAttribute(ATTRIBUTES.accountId, accountId)
        if (observation.cache !== undefined) span.setAttribute(ATTRIBUTES.cacheHit, observation.cache === 'hit')
        annotateOutcome(span, outcome)
      }
      span.end()
    }
    return outcome
  }
  return function tracedAuthenticate(input, budget, _observation, extra) {
    if (!telemetry.shouldTrace()) return run(input, budget, extra, undefined)
    return telemetry.tracer!.startActiveSpan(SPANS.authenticate, SPAN_OPTIONS, (span) => {
      telemetry.noteSpan(span)
      return run(input, budget, extra, span)
    })
  }
}

/**
 * Wraps the service's `connect` with its telemetry: the answer counted by reason and,
 * while tracing, a `passcode_auth.connect` span, parent of the `authenticate` span it
 * runs, with the reason, the status code and, on success, the (whitelisted) partner.
 */
export function traceConnect<Input extends { readonly partner?: unknown }, Result extends ObservedOutcome>(
  telemetry: ServiceTelemetry,
  connect: (input: Input) => Promise<Result>,
): (input: Input) => Promise<Result> {
  async function run(input: Input, span: TelemetrySpan | undefined): Promise<Result> {
    let result: Result
    try {
      result = await connect(input)
    } catch (error) {
      span?.setStatus({ code: 2 })
      span?.end()
      throw error
    }
    telemetry.record('connect', result, undefined, 0)
    if (span !== undefined) {
      if (span.isRecording()) {
        annotateOutcome(span, result)
        const partner: unknown = Array.isArray(input.partner) ? input.partner[0] : input.partner
        if (result.reason === undefined && typeof partner === 'string') span.setAttribute(ATTRIBUTES.partner, partner.trim().toLowerCase())
      }
      span.end()
    }
    return result
  }
  return function tracedConnect(input) {
    if (!telemetry.shouldTrace()) return run(input, undefined)
    return telemetry.tracer!.startActiveSpan(SPANS.connect, SPAN_OPTIONS, (span) => {
      telemetry.noteSpan(span)
      return run(input, span)
    })
  }
}
