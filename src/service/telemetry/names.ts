/**
 * Every span, metric and attribute name passcode-auth reports through OpenTelemetry,
 * in one place (docs/observability.md lists them, and a test keeps the two in step).
 * Names follow the OpenTelemetry conventions: a `passcode_auth.` namespace, dots
 * between levels, snake_case words, durations in seconds.
 */

/** Span names. */
export const SPANS = {
  authenticate: 'passcode_auth.authenticate',
  connect: 'passcode_auth.connect',
  /** Followed by the store method, e.g. `passcode_auth.store.findCredentialByHash`. */
  storePrefix: 'passcode_auth.store.',
} as const

/** Metric (instrument) names. */
export const METRICS = {
  outcomes: 'passcode_auth.outcomes',
  verifyDuration: 'passcode_auth.verify.duration',
  cacheLookups: 'passcode_auth.cache.lookups',
  notifications: 'passcode_auth.notifications',
  limiterRefusals: 'passcode_auth.limiter.refusals',
  deliveryChanges: 'passcode_auth.invalidations.delivery_changes',
} as const

/** Attribute names on spans and metrics. */
export const ATTRIBUTES = {
  operation: 'passcode_auth.operation',
  outcome: 'passcode_auth.outcome',
  reason: 'passcode_auth.reason',
  statusCode: 'http.response.status_code',
  cacheHit: 'passcode_auth.cache.hit',
  cacheResult: 'passcode_auth.cache.result',
  accountId: 'passcode_auth.account.id',
  passcodeId: 'passcode_auth.passcode.id',
  passcodeKind: 'passcode_auth.passcode.kind',
  partner: 'passcode_auth.partner',
  notificationKind: 'passcode_auth.notification.kind',
  notificationResult: 'passcode_auth.notification.result',
  limiterScope: 'passcode_auth.limiter.scope',
  storeOperation: 'passcode_auth.store.operation',
  errorType: 'error.type',
  deliveryProven: 'passcode_auth.invalidations.proven',
} as const
