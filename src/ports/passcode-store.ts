import type { AccountPasscodesPart } from './account-passcodes-part'
import type { AccountPolicyPart } from './account-policy-part'
import type { AccountsPart } from './accounts-part'
import type { AuditPart } from './audit-part'
import type { CredentialLookupPart } from './credential-lookup-part'
import type { HashesLookupPart } from './hashes-lookup-part'
import type { InvalidationsPart } from './invalidations-part'
import type { LeaksPart } from './leaks-part'
import type { LimitsPart } from './limits-part'
import type { NotificationsPart } from './notifications-part'
import type { PeppersPart } from './peppers-part'
import type { UsageHistoryPart } from './usage-history-part'
import type { UsagePart } from './usage-part'
import type { UserPasscodesPart } from './user-passcodes-part'
import type { WebhooksPart } from './webhooks-part'

export type { AccountPasscodePatch, AccountPasscodesPart, CreateResult, PasscodeRotation, UpdateResult } from './account-passcodes-part'
export type { AccountsPart } from './accounts-part'
export type { AuditPart } from './audit-part'
export type { CredentialLookupPart, CredentialMatch } from './credential-lookup-part'
export type { HashesLookupPart } from './hashes-lookup-part'
export type { Invalidation, InvalidationsPart } from './invalidations-part'
export type { LeakMark, LeakNoticeClaim, LeakNoticeRequest, LeakReport, LeaksPart } from './leaks-part'
export type { ClaimRequest, NotificationClaim, NotificationKind, NotificationsPart } from './notifications-part'
export type { PeppersPart, Rehash } from './peppers-part'
export type { StoredUsageCount, UsageCount, UsageHistoryPart, UsageOutcome, UsageQuery } from './usage-history-part'
export type { UsageEntry, UsagePart } from './usage-part'
export type { GrantResult, UserPasscodesPart } from './user-passcodes-part'
export type { WebhooksPart } from './webhooks-part'

/**
 * An optional part of a store, all or nothing: every member of `Part`, or none of them.
 * A part of one member is simply optional (`Partial<Part>`).
 *
 * @example
 * ```ts
 * type MaybeLeaks = AllOrNone<LeaksPart> // LeaksPart, or a store with no leak method
 * ```
 */
export type AllOrNone<Part> = Part | { readonly [Member in keyof Part]?: undefined }

/**
 * What closes a store, an optional part of {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const store: ClosablePart = postgresStore(pool)
 * await store.close() // before pool.end()
 * ```
 */
export interface ClosablePart {
  /** Releases connections or listeners the store opened itself. */
  close(): Promise<void>
}

/**
 * The parts every store has: account passcodes, the verification lookup, last use, user
 * passcodes, the account's setting and the expiry notifier's claims.
 *
 * @example
 * ```ts
 * const base: RequiredStoreParts = memoryStore()
 * ```
 */
export interface RequiredStoreParts
  extends AccountPasscodesPart, CredentialLookupPart, UsagePart, UserPasscodesPart, AccountsPart, NotificationsPart {}

/**
 * Where passcodes live: the {@link RequiredStoreParts}, and each optional part whole or
 * not at all ({@link AllOrNone}): pepper rotation, usage history, leaks, accounts'
 * policies, limits and credits; the one-member parts (the lookup under several peppers,
 * invalidations, the audit trail, webhooks, `close`) each optional on its own. The type
 * checker holds a store to it: a store with `reportLeak` but no `listLeakMarks` does not
 * compile. The store owns atomicity: the cap and name uniqueness are checked in the same
 * transaction (or lock) as the insert, and verification is one lookup by hash. Instants
 * are epoch milliseconds (UTC). Implementations: memory (reference) and
 * PostgreSQL/PGlite; `test/conformance/store.ts` is the contract.
 *
 * Each write method takes a trailing `audit` record, always (SPEC §5.40, §5.44): a
 * store with the {@link AuditPart} appends its entry to the account's audit chain in the
 * same transaction as the change, signed by its signer in the process (the key never
 * goes to the database), and only when the change happens (a refusal, a lost claim or a
 * `null` result writes none). Where the entry was made from a read before the change,
 * the store takes the values that read gave from the row as it changes it, and an entry
 * it cannot encode fails the write whole. A store without the audit part ignores the
 * argument. There is no write without its record: the service hands one to every write
 * (docs/upgrading.md, "A custom store's writes").
 *
 * @example
 * ```ts
 * import { memoryStore } from 'passcode-auth/memory'
 *
 * const store: PasscodeStore = memoryStore()
 * ```
 */
export type PasscodeStore = RequiredStoreParts &
  Partial<HashesLookupPart> &
  AllOrNone<PeppersPart> &
  AllOrNone<UsageHistoryPart> &
  AllOrNone<LeaksPart> &
  AllOrNone<AccountPolicyPart> &
  AllOrNone<LimitsPart> &
  Partial<InvalidationsPart> &
  Partial<AuditPart> &
  Partial<WebhooksPart> &
  Partial<ClosablePart>

/**
 * A store with every part, as the memory and PostgreSQL stores are.
 *
 * @example
 * ```ts
 * const store: CompletePasscodeStore = memoryStore()
 * await store.listLeakMarks('acc_1') // no optional call
 * ```
 */
export interface CompletePasscodeStore
  extends
    RequiredStoreParts,
    HashesLookupPart,
    PeppersPart,
    UsageHistoryPart,
    LeaksPart,
    AccountPolicyPart,
    LimitsPart,
    InvalidationsPart,
    AuditPart,
    WebhooksPart,
    ClosablePart {}

/**
 * A store whose parts come together for webhooks (SPEC §5.53): the passcodes, their
 * audit trail and the outbox, one storage, so that an event commits with its change.
 *
 * @example
 * ```ts
 * const store: PasscodeStoreWithWebhooks = memoryStore()
 * await store.webhooks.listEndpoints('acc_1')
 * ```
 */
export type PasscodeStoreWithWebhooks = PasscodeStore & AuditPart & WebhooksPart
