/**
 * The service: `createPasscodeAuth()` (passcodes, user passcodes, authentication and
 * `GET /v1/connect` without any framework), its mounts on Node's own `http` server
 * (`nodeRequirePasscode`, `nodeConnectHandler`), its types and errors, the passcode
 * format and status helpers and the expiry notifier. README.md ("What `passcode-auth` exports")
 * lists every value exported here; `test/architecture/root-entry.test.ts` keeps them
 * at most 32.
 *
 * @module passcode-auth
 */
import type { NodeConnectHandlerOptions } from './http/node/node-handlers'
export { createPasscodeAuth } from './http/node/create-passcode-auth'
export type { PasscodeAuth } from './service/create-passcode-auth'
export type { AuditKey, EncryptionKey, PasscodeAuthOptions } from './service/options'
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
export type { CredentialReader } from './service/verify/read-headers'
export type { Credentials, HeaderSource, HeaderValue } from './protocol/credentials'
export type { AuditEvent, AuditEventType, EventBase, ManagementEventBase } from './service/events'
export type {
  AccountPasscodeFieldsInput,
  CreatePasscodeInput,
  GrantUserPasscodeInput,
  ListPasscodesOptions,
  PasscodeLimitsInput,
  RotatePasscodeInput,
  UpdatePasscodeInput,
} from './service/input'
export type { PasscodesApi } from './service/passcodes/passcodes'
export type { PasscodeUsage, UsageDay } from './service/views'
export type { UserPasscodesApi } from './service/user-passcodes/user-passcodes'
export type { PartnersApi } from './service/connect/partners-api'
export type { DeclaredScope, ScopesApi } from './service/scopes'
export type { LeakReportOptions, LeakVerdict, LeakedToken, LeaksApi } from './service/leaks/report-leaks'
export type { AccountsApi } from './service/accounts'
export type { PepperReport } from './service/verify/peppers'
export type { AuditApi, AuditPage, AuditPruneReport } from './service/audit/audit-api'
export type { AuditFilters, AuditListOptions } from './service/audit/audit-input'
export { AUDIT_ACTIONS } from './core/audit'
export type {
  AuditAction,
  AuditActor,
  AuditChanges,
  AuditEntry,
  AuditRecord,
  AuditRecordFilter,
  AuditSigner,
  AuditTarget,
  AuditValue,
} from './core/audit'
export type { AuditBreak, AuditChainEnds, AuditChainPoint, AuditFailure, AuditVerification } from './core/audit-chain'
export type { AuditListing } from './core/audit-page'
export type { AuditAppend, AuditLog, AuditQuery } from './ports/audit-log'
export { IssuedPasscode } from './service/issued-passcode'
export { nodeConnectHandler, nodeRequirePasscode } from './http/node/node-handlers'
export type { NodeConnectHandlerOptions, NodeHandler, NodePasscodeGuard, NodeRequirePasscodeOptions } from './http/node/node-handlers'
export { startExpiryNotifier } from './service/notifier/expiry-notifier'
export { startWebhookDispatcher } from './service/webhooks/webhook-dispatcher'
export type { WebhookDispatcher, WebhookDispatcherOptions } from './service/webhooks/webhook-dispatcher'
export type { WebhookDispatchReport } from './service/webhooks/dispatch'
export type { IssuedWebhookSecret, WebhookDeliveryPage, WebhooksApi } from './service/webhooks/webhooks-api'
export type { CreateWebhookInput, UpdateWebhookInput, WebhookDeliveriesOptions } from './service/webhooks/webhook-input'
export type { WebhookDeliveryView, WebhookEndpointView } from './core/webhook-views'
export type { CreditCrossing, WebhookEvent, WebhookEventType, WebhookJson } from './core/webhook-events'
export type { ExpiryNotifier, ExpiryNotifierOptions } from './service/notifier/expiry-notifier'
export { defaultNotificationTemplates } from './service/notifier/notification-messages'
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
export type { LeakNoticeResult } from './service/leak-notice-result'

export { PASSCODE_PATTERN, generatePasscode, isWellFormedPasscode, passcodePattern } from './core/passcode-format'
export type { PasscodeHasher } from './core/hashing'
export { EXPIRING_SOON_DAYS, passcodeStatus } from './core/status'
export type { PasscodeStatus, StatusInput } from './core/status'
export type { NotificationKind } from './core/notifications'
export { MAX_ACCOUNT_PASSCODES, MAX_NAME_LENGTH, passcodeNameKey } from './core/rules'
export type { AcceptedPasscodes, AccountPasscodeExpiry, Actor, Principal, UserPasscodeValidity } from './core/entities'
export type { AccountPasscodeRecord, UserPasscodeRecord } from './core/passcode-records'
export type { PasscodeLeak, PasscodeLimitsView, PasscodeUseView, PasscodeView, UserPasscodeView } from './core/passcode-views'
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
  AuditChainBrokenError,
  ReactivationRefusedError,
  RotationRefusedError,
  StorageError,
  StorageTimeoutError,
} from './core/errors'
export type { PasscodeAuthErrorCode } from './core/errors'
export type {
  AccountPasscodePatch,
  AccountPasscodesPart,
  AccountsPart,
  AllOrNone,
  AuditPart,
  ClaimRequest,
  Clock,
  ClosablePart,
  CompletePasscodeStore,
  CreateResult,
  CredentialLookupPart,
  CredentialMatch,
  GrantResult,
  HashesLookupPart,
  Invalidation,
  InvalidationsPart,
  LeakMark,
  LeakNoticeClaim,
  LeakNoticeRequest,
  LeakReport,
  LeaksPart,
  Mailer,
  MailMessage,
  NotificationClaim,
  NotificationRecipients,
  NotificationsPart,
  PartnerRegistry,
  PasscodeRotation,
  PasscodeStore,
  PasscodeStoreWithWebhooks,
  PeppersPart,
  RateLimitStore,
  Rehash,
  RequiredStoreParts,
  StoredUsageCount,
  UpdateResult,
  UsageCount,
  UsageEntry,
  UsageHistoryPart,
  UsageOutcome,
  UsagePart,
  UsageQuery,
  UserPasscodesPart,
  WebhooksPart,
} from './ports/index'
export type {
  WebhookAddressPolicy,
  WebhookAttemptOutcome,
  WebhookClaimRequest,
  WebhookDeliveryClaim,
  WebhookDeliveryQuery,
  WebhookDeliveryRecord,
  WebhookDeliveryState,
  WebhookEndpointPatch,
  WebhookEndpointRecord,
  WebhookNoticeClaim,
  WebhookSendRequest,
  WebhookSendResult,
  WebhookSender,
  WebhookStore,
  WebhookUrlCheck,
} from './ports/index'
// SPEC §5.52: the account policy, its methods, the store's part and the notifier's report of its emails.
export type { AccountPolicy, PolicyRule } from './core/policy'
export type { AccountPolicyInput } from './service/input'
export type { AccountPolicyView, PolicyApi } from './service/policy/policy-api'
export type { PolicyNoticeResult } from './service/policy-notice-result'
export type { AccountPolicyPart, PolicyNotice, PolicyNoticeClaim, PolicyNoticeRequest } from './ports/index'
export type { FailureBody, FailureReason, HttpResult, SuccessBody } from './protocol/outcomes'
export type { CorsOptions } from './http/cors'
export type { ConnectResponseSchemas, ConnectSuccessBody } from './protocol/connect-response-schemas'

// The former names, kept so that nothing breaks: each is the same value or type.
/**
 * The options of {@link nodeConnectHandler} under their former name.
 *
 * @deprecated Use {@link NodeConnectHandlerOptions}, named as every adapter names its connect options.
 * @example
 * ```ts
 * const options: NodeConnectOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export type NodeConnectOptions = NodeConnectHandlerOptions
export type { CreditsRefill, RateLimitSetting, StoredCredits } from './core/limits'
export type { JsonValue, PasscodeMetadata, PrincipalCredits } from './core/entities'
export type { CreditsView } from './core/passcode-views'
export type { CreditsInput } from './service/input'
export type { CreditNoticeResult } from './service/credit-notice-result'
export type { ScopeRequirement } from './service/verify/restrictions'
export type {
  CreditBalance,
  CreditNotice,
  CreditNoticeClaim,
  CreditNoticeRequest,
  LimitsLease,
  LimitsLeaseRequest,
  LimitsPart,
  LimitsReturn,
} from './ports/limits-part'
