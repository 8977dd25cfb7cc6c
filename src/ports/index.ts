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
export type { NotificationRecipients } from './recipients'
export type { RateLimitStore } from './rate-limit-store'
