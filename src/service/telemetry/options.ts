import { z } from 'zod'
import { objectWithMethods } from '../option-checks'
import type { TelemetryMeter, TelemetryTracer } from './otel-api'

/** The `telemetry` option: the host's own OpenTelemetry tracer and meter, either or both. */
export const telemetrySchema = z
  .object({
    tracer: objectWithMethods<TelemetryTracer>(
      "an OpenTelemetry Tracer (trace.getTracer('passcode-auth'))",
      'startSpan',
      'startActiveSpan',
    ).optional(),
    meter: objectWithMethods<TelemetryMeter>(
      "an OpenTelemetry Meter (metrics.getMeter('passcode-auth'))",
      'createCounter',
      'createHistogram',
    ).optional(),
  })
  .strict()
