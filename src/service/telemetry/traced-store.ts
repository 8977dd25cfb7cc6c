import type { PasscodeStore } from '../../ports/passcode-store'
import { ATTRIBUTES, SPANS } from './names'
import type { TelemetrySpan } from './otel-api'
import { SPAN_OPTIONS, type ServiceTelemetry } from './telemetry'

// Registers a listener; not a storage call.
const UNTRACED = new Set<PropertyKey>(['subscribe'])

function failed(span: TelemetrySpan, error: unknown): void {
  // The error's class only: a driver's message may quote what it was sent.
  span.setAttribute(ATTRIBUTES.errorType, error instanceof Error ? error.name : typeof error)
  span.setStatus({ code: 2 })
  span.end()
}

/**
 * The store with every method call (but `subscribe`) in a `passcode_auth.store.<method>`
 * span while tracing, a child of the active `authenticate` or `connect` span. Methods a
 * store adds beyond the port are traced too. Without tracing a call costs one check.
 */
export function traceStore<Store extends PasscodeStore>(telemetry: ServiceTelemetry, store: Store): Store {
  const tracer = telemetry.tracer
  if (tracer === undefined) return store
  const wrapped = new Map<PropertyKey, unknown>()
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if (typeof value !== 'function' || UNTRACED.has(property) || typeof property !== 'string') return value
      let traced = wrapped.get(property)
      if (traced === undefined) {
        const method = value as (...args: unknown[]) => unknown
        const name = SPANS.storePrefix + property
        const attributes = Object.freeze({ [ATTRIBUTES.storeOperation]: property })
        traced = function tracedStoreCall(...args: unknown[]): unknown {
          if (!telemetry.shouldTrace()) return method.apply(target, args)
          const span = tracer.startSpan(name, { ...SPAN_OPTIONS, attributes })
          telemetry.noteSpan(span)
          let result: unknown
          try {
            result = method.apply(target, args)
          } catch (error) {
            failed(span, error)
            throw error
          }
          if (result instanceof Promise) {
            return result.then(
              (settled: unknown) => (span.end(), settled),
              (error: unknown) => (failed(span, error), Promise.reject(error)),
            )
          }
          span.end()
          return result
        }
        wrapped.set(property, traced)
      }
      return traced
    },
  })
}
