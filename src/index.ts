/**
 * The service: `createPasscodeAuth()` (passcodes, user passcodes, authentication and
 * `GET /v1/connect` without any framework), its types and errors, the core helpers
 * (passcode format, status, rules), the expiry notifier and the zod schemas of the
 * connect answers.
 *
 * @module passcode-auth
 */
export { createPasscodeAuth } from './service/create-passcode-auth'
export type { PasscodeAuth } from './service/create-passcode-auth'
export type { EncryptionKey, PasscodeAuthOptions } from './service/options'
export type { RateLimitOptions } from './service/limiter/options'
export type {
  TelemetryAttributes,
  TelemetryCounter,
  TelemetryHistogram,
  TelemetryInstrumentOptions,
  TelemetryMeter,
  TelemetryOptions,
  TelemetrySpan,
  TelemetrySpanOptions,
  TelemetryTracer,
} from './service/telemetry/otel-api'
export type { AuthOutcome, CredentialsInput } from './service/auth-outcome'
export type { ConnectInput, ConnectResult } from './service/connect/connect'
export type { Credentials, HeaderSource, HeaderValue } from './protocol/credentials'
export type { AuditEvent, AuditEventType, EventBase, ManagementEventBase } from './service/events'
export type {
  CreatePasscodeInput,
  GrantUserPasscodeInput,
  ListPasscodesOptions,
  RotatePasscodeInput,
  UpdatePasscodeInput,
} from './service/input'
export type { PasscodesApi } from './service/passcodes/passcodes'
export type { UserPasscodesApi } from './service/user-passcodes/user-passcodes'
export type { PartnersApi } from './service/connect/partners-api'
export type { AccountsApi } from './service/accounts'
export type { PepperReport } from './service/verify/peppers'
export { IssuedPasscode } from './service/issued-passcode'
export { staticPartners } from './service/connect/partners'
export { startExpiryNotifier } from './service/notifier/expiry-notifier'
export type { ExpiryNotifier, ExpiryNotifierOptions } from './service/notifier/expiry-notifier'
export { defaultNotificationTemplates, escapeHtml } from './service/notifier/notification-messages'
export type {
  NotificationContent,
  NotificationMessageData,
  NotificationTemplate,
  NotificationTemplates,
} from './service/notifier/notification-messages'
export type {
  FailedNotification,
  NotificationFailureReason,
  NotificationReport,
  NotificationReportItem,
  NotificationSkipReason,
  SentNotification,
  SkippedNotification,
} from './service/notifier/notification-report'

export {
  DEFAULT_PASSCODE_PREFIX,
  PASSCODE_PATTERN,
  generatePasscode,
  isWellFormedPasscode,
  passcodeHint,
  passcodePattern,
} from './core/passcode-format'
export { constantTimeEqual, createPasscodeHasher, pepperId } from './core/hashing'
export type { PasscodeHasher } from './core/hashing'
export { EXPIRING_SOON_DAYS, passcodeStatus } from './core/status'
export type { PasscodeStatus, StatusInput } from './core/status'
export { dueNotification } from './core/notifications'
export type { NotificationKind } from './core/notifications'
export { DAY_MS } from './core/time'
export {
  ACCOUNT_EXPIRY_DAYS,
  INFINITE_VALIDITY_YEARS,
  MAX_ACCOUNT_PASSCODES,
  MAX_NAME_LENGTH,
  ROTATION_OVERLAP_MINUTES,
  UNUSED_AFTER_DAYS,
  USER_VALIDITY_DAYS,
  passcodeNameKey,
} from './core/rules'
export type {
  AcceptedPasscodes,
  AccountPasscodeExpiry,
  AccountPasscodeRecord,
  Actor,
  PasscodeView,
  Principal,
  UserPasscodeRecord,
  UserPasscodeValidity,
  UserPasscodeView,
} from './core/entities'
export {
  AlreadyGrantedError,
  CapReachedError,
  ConfigurationError,
  DuplicateNameError,
  ForbiddenError,
  InvalidInputError,
  InvalidOptionsError,
  MailerError,
  NoRecipientsError,
  NotFoundError,
  PasscodeAuthError,
  ReactivationRefusedError,
  RotationRefusedError,
  StorageError,
  StorageTimeoutError,
} from './core/errors'
export type { PasscodeAuthErrorCode } from './core/errors'
export type {
  AccountPasscodePatch,
  ClaimRequest,
  Clock,
  CreateResult,
  CredentialMatch,
  GrantResult,
  Invalidation,
  Mailer,
  MailMessage,
  NotificationClaim,
  NotificationRecipients,
  PartnerRegistry,
  PasscodeRotation,
  PasscodeStore,
  Rehash,
  RateLimitStore,
  UpdateResult,
  UsageEntry,
} from './ports/index'
export type { FailureBody, FailureReason, HttpResult, SuccessBody } from './protocol/outcomes'
export type { CorsOptions } from './http/cors'
export {
  connectFailureBodySchema,
  connectResponseSchemas,
  connectSuccessBodySchema,
  invalidCredentialsBodySchema,
  missingPartnerBodySchema,
  partnerNotWhitelistedBodySchema,
  passcodeExpiredBodySchema,
  rateLimitedBodySchema,
  serverErrorBodySchema,
} from './protocol/connect-response-schemas'
export type { ConnectResponseSchemas, ConnectSuccessBody } from './protocol/connect-response-schemas'
