/*
 * The bodies the management API (SPEC §5.29) answers with, as zod schemas: the routes
 * (src/http/management/routes.ts) write every success body through `encodeAnswer` with
 * these, so a field reaches the wire only if it is here, and `npm run openapi`
 * (scripts/management-openapi.ts) turns the same schemas into docs/management-openapi.json.
 * The request bodies are the service's input schemas (src/service/input.ts); the error
 * body is in management-errors.ts, beside the one code → status table.
 *
 * A schema's input is the JSON on the wire, its output what the service returns (a
 * `Date` where the wire has an ISO 8601 text). Objects are not strict: a client should
 * accept fields added later.
 */
// One module per resource: passcodes, the account, webhooks; management-answers.ts holds
// what they share and encodeAnswer. This module is where the rest of the code imports them.
export { encodeAnswer } from './management-answers'
export type { AnswerJson, AnswerSchema, AnswerValue } from './management-answers'
export {
  passcodeViewSchema,
  userPasscodeViewSchema,
  issuedPasscodeSchema,
  issuedUserPasscodeSchema,
  passcodeListSchema,
  usageAnswerSchema,
  passcodeAnswerSchema,
  userPasscodeAnswerSchema,
} from './management-passcode-schemas'
export {
  acceptedPasscodesSchema,
  setAcceptedPasscodesBodySchema,
  userListSchema,
  accountAnswerSchema,
  accountPolicyAnswerSchema,
  partnerListSchema,
  scopeListSchema,
} from './management-account-schemas'
export {
  webhookEventsSchema,
  webhookEndpointViewSchema,
  webhookDeliveryViewSchema,
  webhookListSchema,
  webhookAnswerSchema,
  issuedWebhookSchema,
  webhookDeliveryPageSchema,
  webhookDeliveryAnswerSchema,
} from './management-webhook-schemas'
