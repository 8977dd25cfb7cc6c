// The management API's answers as the page reads them: the JSON side of the protocol's
// zod schemas (src/protocol/), imported as types only, so no byte of zod reaches the
// bundle (test/dashboard/assets.test.ts checks the bundle's inputs).
import type { auditPageSchema } from '../../protocol/management-audit'
import type {
  accountAnswerSchema,
  accountPolicyAnswerSchema,
  AnswerJson,
  issuedPasscodeSchema,
  issuedUserPasscodeSchema,
  partnerListSchema,
  passcodeListSchema,
  scopeListSchema,
  usageAnswerSchema,
  userListSchema,
  userPasscodeAnswerSchema,
  issuedWebhookSchema,
  webhookDeliveryAnswerSchema,
  webhookDeliveryPageSchema,
  webhookListSchema,
} from '../../protocol/management-schemas'

/** `GET /passcodes`. */
export type PasscodeList = AnswerJson<typeof passcodeListSchema>
/** An account passcode (never its value). */
export type Passcode = PasscodeList['passcodes'][number]
/** The answer to create and rotate: the passcode and its value, once. */
export type IssuedPasscode = AnswerJson<typeof issuedPasscodeSchema>
/** `GET /users`. */
export type UserList = AnswerJson<typeof userListSchema>
/** A row of `GET /users`. */
export type User = UserList['users'][number]
/** `GET /users/:userId/passcode`. */
export type UserPasscodeAnswer = AnswerJson<typeof userPasscodeAnswerSchema>
/** A user passcode (never its value). */
export type UserPasscode = UserPasscodeAnswer['passcode']
/** `GET /me/passcode`: the caller's own passcode and its value. */
export type IssuedUserPasscode = AnswerJson<typeof issuedUserPasscodeSchema>
/** Where a passcode's value was found in public (SPEC §5.42). */
export type Leak = NonNullable<Passcode['leak']>
/** A status as the API sends it. */
export type Status = Passcode['status']
/** `GET /account`. */
export type AccountAnswer = AnswerJson<typeof accountAnswerSchema>
/** Which passcodes the account accepts. */
export type Accepted = AccountAnswer['account']['acceptedPasscodes']
/** `GET /partners`. */
export type PartnerList = AnswerJson<typeof partnerListSchema>
/** `GET /scopes`: the scopes the host declares (SPEC §5.48). */
export type ScopeList = AnswerJson<typeof scopeListSchema>
/** One declared scope: its name and description. */
export type DeclaredScope = ScopeList['scopes'][number]
/** What account and user passcodes carry beyond their kind's own fields (SPEC §5.48 to §5.51): the forms prefill from it. */
export type Restrictions = Pick<Passcode, 'scopes' | 'unknownScopes' | 'allowedAddresses' | 'rateLimit' | 'credits'> &
  Partial<Pick<Passcode, 'metadata' | 'tags'>>
/** `GET …/usage`: `{ usage }`. */
export type UsageAnswer = AnswerJson<typeof usageAnswerSchema>
/** A passcode's usage over time. */
export type PasscodeUsage = UsageAnswer['usage']
/** One UTC day of it. */
export type UsageDay = PasscodeUsage['days'][number]
/** `GET /audit`. */
export type AuditPage = AnswerJson<typeof auditPageSchema>
/** One audit record. */
export type AuditRecord = AuditPage['records'][number]
/** `GET /webhooks`. */
export type WebhookList = AnswerJson<typeof webhookListSchema>
/** A webhook endpoint (never its secret). */
export type WebhookEndpoint = WebhookList['endpoints'][number]
/** The answer to adding an endpoint or rotating its secret: the endpoint and its secret, once. */
export type IssuedWebhook = AnswerJson<typeof issuedWebhookSchema>
/** `GET /webhook-deliveries`. */
export type WebhookDeliveryPage = AnswerJson<typeof webhookDeliveryPageSchema>
/** One delivery: an event to an endpoint, its status and last attempt. */
export type WebhookDelivery = WebhookDeliveryPage['deliveries'][number]
/** The answer to "Send test event" and Replay. */
export type WebhookDeliveryAnswer = AnswerJson<typeof webhookDeliveryAnswerSchema>

/** `GET`, `PUT` and `DELETE /account/policy` (SPEC §5.52). */
export type AccountPolicy = AnswerJson<typeof accountPolicyAnswerSchema>
