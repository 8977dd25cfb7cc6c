export type { Clock } from './clock'
export type { Mailer, MailMessage } from './mailer'
export type { PartnerRegistry } from './partner-registry'
export type {
  AccountPasscodePatch,
  ClaimRequest,
  CreateResult,
  CredentialMatch,
  GrantResult,
  Invalidation,
  LeakMark,
  LeakNoticeClaim,
  LeakNoticeRequest,
  LeakReport,
  NotificationClaim,
  NotificationKind,
  PasscodeRotation,
  PasscodeStore,
  PasscodeStoreWithWebhooks,
  Rehash,
  UpdateResult,
  UsageEntry,
  UsageCount,
  UsageOutcome,
  UsageQuery,
  StoredUsageCount,
} from './passcode-store'
export type {
  CreditBalance,
  CreditNotice,
  CreditNoticeClaim,
  CreditNoticeRequest,
  LimitsLease,
  LimitsLeaseRequest,
  LimitsPart,
  LimitsReturn,
} from './limits-part'
export type { AccountPolicyPart, PolicyNotice, PolicyNoticeClaim, PolicyNoticeRequest } from './account-policy-part'
export type { NotificationRecipients } from './recipients'
export type { RateLimitStore } from './rate-limit-store'
export type { WebhookAddressPolicy, WebhookSendRequest, WebhookSendResult, WebhookSender, WebhookUrlCheck } from './webhook-sender'
export type {
  WebhookAttemptOutcome,
  WebhookClaimRequest,
  WebhookDeliveryClaim,
  WebhookDeliveryQuery,
  WebhookDeliveryRecord,
  WebhookDeliveryState,
  WebhookEndpointPatch,
  WebhookEndpointRecord,
  WebhookNoticeClaim,
  WebhookStore,
} from './webhook-store'
