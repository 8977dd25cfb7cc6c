import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import { SESSION_COOKIE } from '../src/cli/server/dashboard-logins'
import { ROUTES } from '../src/http/management/routes'
import { DuplicateNameError, ForbiddenError, InvalidInputError, NotFoundError, StorageError, StorageTimeoutError } from '../src/core/errors'
import { MAX_BODY_BYTES } from '../src/http/management/read-json'
import {
  managementErrorAnswer,
  managementErrorBodySchemaOf,
  managementErrorCodesOf,
  managementFailure,
  type ManagementFailure,
} from '../src/protocol/management-errors'
import {
  accountAnswerSchema,
  accountPolicyAnswerSchema,
  issuedPasscodeSchema,
  issuedUserPasscodeSchema,
  issuedWebhookSchema,
  partnerListSchema,
  scopeListSchema,
  passcodeAnswerSchema,
  passcodeListSchema,
  passcodeViewSchema,
  setAcceptedPasscodesBodySchema,
  userListSchema,
  userPasscodeAnswerSchema,
  userPasscodeViewSchema,
  usageAnswerSchema,
  webhookAnswerSchema,
  webhookDeliveryAnswerSchema,
  webhookDeliveryPageSchema,
  webhookDeliveryViewSchema,
  webhookEndpointViewSchema,
  webhookListSchema,
} from '../src/protocol/management-schemas'
import {
  auditExportLineSchema,
  auditFilterQuerySchema,
  auditListQuerySchema,
  auditPageSchema,
  auditRecordSchema,
} from '../src/protocol/management-audit'
import { inputSchemas, passcodeListQuerySchema } from '../src/service/input'
import { webhookDeliveriesQuerySchema, webhookInputSchemas } from '../src/service/webhooks/webhook-input'
import { JSON_SCHEMA_OPTIONS } from './json-schema-options'

/**
 * Generates docs/management-openapi.json, the OpenAPI 3.1 document of the management
 * API (SPEC §5.29) that the dashboard and the framework mounts serve under
 * `<mount>/api`. Every schema in it is `z.toJSONSchema` of a zod schema the code uses:
 * the request bodies are the service's input schemas (src/service/input.ts), the
 * answers those the routes encode their bodies with (src/protocol/management-schemas.ts),
 * the error body of each status, with the codes that status carries, the one error
 * table (src/protocol/management-errors.ts). This file adds only prose, operation IDs,
 * the headers and which route answers with which schema. test/docs/management-openapi.test.ts
 * checks that every route of src/http/management/routes.ts is described and that the
 * committed file is this output (`npm run openapi` rewrites both documents);
 * test/docs/openapi-contract.test.ts drives a client generated from it.
 */

/** Where the document is written. */
export const MANAGEMENT_OPENAPI_FILE = fileURLToPath(new URL('../docs/management-openapi.json', import.meta.url))

/** The named schemas, in `components.schemas`, in this order (the error bodies follow); operations refer to them by name. */
const COMPONENTS = {
  Passcode: passcodeViewSchema,
  UserPasscode: userPasscodeViewSchema,
  PasscodeList: passcodeListSchema,
  PasscodeAnswer: passcodeAnswerSchema,
  IssuedPasscode: issuedPasscodeSchema,
  UserList: userListSchema,
  UserPasscodeAnswer: userPasscodeAnswerSchema,
  IssuedUserPasscode: issuedUserPasscodeSchema,
  Account: accountAnswerSchema,
  AccountPolicy: accountPolicyAnswerSchema,
  PartnerList: partnerListSchema,
  ScopeList: scopeListSchema,
  UsageAnswer: usageAnswerSchema,
  AuditRecord: auditRecordSchema,
  AuditPage: auditPageSchema,
  AuditExportLine: auditExportLineSchema,
  WebhookEndpoint: webhookEndpointViewSchema,
  WebhookDelivery: webhookDeliveryViewSchema,
  WebhookList: webhookListSchema,
  WebhookAnswer: webhookAnswerSchema,
  IssuedWebhook: issuedWebhookSchema,
  WebhookDeliveryPage: webhookDeliveryPageSchema,
  WebhookDeliveryAnswer: webhookDeliveryAnswerSchema,
  CreatePasscode: inputSchemas.create,
  UpdatePasscode: inputSchemas.update,
  RotatePasscode: inputSchemas.rotate,
  GrantUserPasscode: inputSchemas.grant,
  SetAcceptedPasscodes: setAcceptedPasscodesBodySchema,
  SetAccountPolicy: inputSchemas.policy,
  CreateWebhook: webhookInputSchemas.create,
  UpdateWebhook: webhookInputSchemas.update,
} as const satisfies Record<string, z.ZodType>

type ComponentName = keyof typeof COMPONENTS

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** The error body of a status, in `components.schemas`: `Error409` and so on. */
const errorComponent = (status: number) => `Error${status}`

/**
 * JSON Schema of every component (see {@link JSON_SCHEMA_OPTIONS}), each reference to
 * another component a `$ref`: those of {@link COMPONENTS}, then the error body of each
 * status an operation documents.
 */
function componentSchemas(): Record<string, Record<string, unknown>> {
  const named: [string, z.ZodType][] = [
    ...Object.entries(COMPONENTS),
    ...errorStatuses().map((status): [string, z.ZodType] => [errorComponent(status), managementErrorBodySchemaOf(status)]),
  ]
  const registry = z.registry<{ id: string }>()
  for (const [id, schema] of named) registry.add(schema, { id })
  const { schemas } = z.toJSONSchema(registry, { ...JSON_SCHEMA_OPTIONS, uri: (id) => `#/components/schemas/${id}` })
  return Object.fromEntries(
    named.map(([id]) => {
      const { $schema: _dialect, $id: _id, ...schema } = schemas[id] as Record<string, unknown>
      return [id, schema]
    }),
  )
}

const json = (schema: unknown, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } })

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid input: the body, a query parameter, or an ID in the path that is not 1 to 256 visible ASCII characters (an empty one too); `field` names the input at fault (`passcodeId` for `{id}`, `userId` for `{userId}`, `endpointId` and `deliveryId` for theirs, a query parameter by its name).',
  401: 'No session: the host resolver returned nothing.',
  403: 'The signed-in user may not do this, or the request came from another site (CSRF).',
  404: 'No such passcode, user, webhook endpoint or delivery in this account (also for ids of other accounts).',
  409: 'Conflicts with the current state: duplicate name, cap reached, already granted, reactivation or rotation refused.',
  413: 'The body is larger than 16 KiB.',
  415: 'The body is not `application/json`.',
  500: 'A configuration error of the host (its code says which), a stored audit trail that does not verify (`ERR_AUDIT_BROKEN`, from the audit trail operations: the message names the first record at fault, SPEC §5.44), or an internal error (no detail).',
  503: 'The passcode store is unavailable.',
  504: 'The passcode store reported that it did not answer in time (a store that bounds its own calls throws `StorageTimeoutError`). The management API sets no deadline of its own: the `timeoutMs` option bounds verification and `/v1/connect` only, so a store that never answers holds the request.',
}

/** One example failure per status, built by the functions the API answers with. */
const ERROR_EXAMPLES: Readonly<Record<number, ManagementFailure>> = {
  400: managementErrorAnswer(new InvalidInputError('expiry', 'must be at least 1 day')),
  401: managementFailure('ERR_UNAUTHENTICATED', 'Sign in first'),
  403: managementErrorAnswer(new ForbiddenError('Only admins grant, reset or revoke user passcodes')),
  404: managementErrorAnswer(new NotFoundError('No such passcode in this account')),
  409: managementErrorAnswer(new DuplicateNameError('Acme')),
  413: managementFailure('ERR_PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES} bytes`),
  415: managementFailure('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json'),
  500: managementErrorAnswer(new Error('not shown')),
  503: managementErrorAnswer(new StorageError()),
  504: managementErrorAnswer(new StorageTimeoutError(2000)),
}

/**
 * The 400s the request schemas cannot state, because they need the server's state or
 * because a JSON Schema cannot say them; an operation's 400 names those that apply to it,
 * and test/docs/openapi-contract.test.ts names one of these for each refused request that
 * its schemas accept.
 */
export const SERVER_RULES = {
  whitelistedPartners: "`partners`: each name must be on the operator's whitelist (`GET /partners`), which is the server's state.",
  pageCursor: "`cursor`: only a `nextCursor` of this list; its form is the server's own.",
  webhookAddress:
    "`url`: its host must not resolve to a loopback, private, link-local, shared, unique-local, multicast, reserved or metadata address (unless the host allows them), which needs the server's resolver.",
  leakedOverlap:
    "`overlapMinutes`: required, except for a passcode found in public (its `leak` is not null), where it may be left out and only 0 is taken (SPEC §5.45): which one applies is the passcode's state.",
  declaredScopes: "`scopes`: each name must be a scope the host declares (its `scopes` option, SPEC §5.48), which is the server's configuration.",
  cidrRanges: '`allowedAddresses`: each must be an IPv4 or IPv6 CIDR range with no host bits set (SPEC §5.49), which a JSON Schema cannot check.',
  metadataSize: '`metadata`: at most 1024 bytes as UTF-8 JSON and 8 levels deep (SPEC §5.51), which a JSON Schema cannot measure.',
  normalisedLength:
    "`name`, `description`: their lengths count the text in Unicode NFC, which a JSON Schema cannot compute; text that NFC lengthens past the limit (rare: some scripts' letters with marks) is refused.",
} as const

/** A name of {@link SERVER_RULES}. */
export type ServerRule = keyof typeof SERVER_RULES

/** The header every answer carries, in `components.headers`. */
const CACHE_CONTROL = { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } }

function errorResponse(status: number, rules: readonly ServerRule[]) {
  const example = ERROR_EXAMPLES[status]
  if (example?.statusCode !== status) throw new Error(`no example failure for ${status}`)
  const named =
    status !== 400
      ? ''
      : rules.length === 0
        ? ' Every such request breaks the request schemas.'
        : ` Every such request breaks the request schemas, except those refused on these rules, which the schemas cannot state: ${rules.map((rule) => SERVER_RULES[rule]).join(' ')}`
  return {
    description: `${ERROR_TEXT[status]}${named} Codes: ${managementErrorCodesOf(status).join(', ')}.`,
    headers: CACHE_CONTROL,
    content: json(ref(errorComponent(status)), example.body),
  }
}

const COMMON_ERRORS = [401, 500, 503, 504]
const WRITE_ERRORS = [400, 403, 413, 415]

/** What the document says of one route; the schemas are named, never written here. */
interface Operation {
  readonly operationId: string
  readonly summary: string
  readonly body?: ComponentName
  /** The success status, its text, and the schema of its body (none for 204). */
  readonly success: readonly [status: number, description: string, schema?: ComponentName]
  /** Failure statuses besides {@link COMMON_ERRORS}. */
  readonly errors: readonly number[]
  /** The query parameters, the schema the route reads them with (src/http/management/query.ts). */
  readonly query?: z.ZodObject
  /** A success body of JSON lines: what each line holds, and the schema of one line. */
  readonly successLines?: readonly [description: string, line: ComponentName]
  /** The 400s on rules its request schemas cannot state (see {@link SERVER_RULES}). */
  readonly serverRules?: readonly ServerRule[]
  /** It reads no store (the host's own configuration): no 503 or 504. */
  readonly storeFree?: true
}

/** Every route of src/http/management/routes.ts, as `METHOD /path` in OpenAPI path syntax. */
const OPERATIONS: Readonly<Record<string, Operation>> = {
  'GET /passcodes': {
    operationId: 'listPasscodes',
    summary: "List the account's passcodes (any member; never a value); filters by tags and text and orders by the query string",
    query: passcodeListQuerySchema,
    success: [200, 'Every passcode that matches, expired ones included.', 'PasscodeList'],
    errors: [400],
  },
  'POST /passcodes': {
    operationId: 'createPasscode',
    summary: 'Create a passcode; its value is in this answer only',
    body: 'CreatePasscode',
    success: [201, 'Created; the only answer with its value.', 'IssuedPasscode'],
    errors: [...WRITE_ERRORS, 409],
    serverRules: ['whitelistedPartners', 'normalisedLength', 'declaredScopes', 'cidrRanges', 'metadataSize'],
  },
  'PATCH /passcodes/{id}': {
    operationId: 'updatePasscode',
    summary: 'Edit the name, expiry (counted from now), partner binding, description, scopes, address ranges, metadata or tags',
    body: 'UpdatePasscode',
    success: [200, 'The new view.', 'PasscodeAnswer'],
    errors: [...WRITE_ERRORS, 404, 409],
    serverRules: ['whitelistedPartners', 'normalisedLength', 'declaredScopes', 'cidrRanges', 'metadataSize'],
  },
  'DELETE /passcodes/{id}': {
    operationId: 'deletePasscode',
    summary: 'Delete a passcode; calls with it fail at once',
    success: [204, 'Deleted.'],
    errors: [400, 403, 404],
  },
  'POST /passcodes/{id}/rotate': {
    operationId: 'rotatePasscode',
    summary: 'Issue a new value; the old one keeps working for the overlap',
    body: 'RotatePasscode',
    success: [201, 'Rotated; the only answer with the new value.', 'IssuedPasscode'],
    errors: [...WRITE_ERRORS, 404, 409],
    serverRules: ['leakedOverlap'],
  },
  'GET /passcodes/{id}/usage': {
    operationId: 'getPasscodeUsage',
    summary: 'Usage over time of a passcode (any member): per UTC day of the kept ones, successes and matched refusals, connect per partner',
    success: [200, 'The kept days with requests, oldest first.', 'UsageAnswer'],
    errors: [400, 404],
  },
  'POST /passcodes/{id}/disable': {
    operationId: 'disablePasscode',
    summary: 'Disable a passcode: refused everywhere, kept with its value, name, binding and expiry (no body; already disabled answers 200 too)',
    success: [200, 'The view, status `disabled`.', 'PasscodeAnswer'],
    errors: [400, 403, 404],
  },
  'POST /passcodes/{id}/enable': {
    operationId: 'enablePasscode',
    summary: 'Enable a disabled passcode: it works again at once on every instance (no body; already enabled answers 200 too)',
    success: [200, 'The view.', 'PasscodeAnswer'],
    errors: [400, 403, 404],
  },
  'GET /users': {
    operationId: 'listUsers',
    summary: "The account's user passcodes (no values), with the host's directory when it has one",
    success: [200, '`directory` says whether the host gave a user directory.', 'UserList'],
    errors: [],
  },
  'GET /users/{userId}/passcode': {
    operationId: 'getUserPasscode',
    summary: "A user's passcode view (no value)",
    success: [200, 'The view.', 'UserPasscodeAnswer'],
    errors: [400, 404],
  },
  'PUT /users/{userId}/passcode': {
    operationId: 'grantUserPasscode',
    summary: 'Grant a user passcode (admins); the admin never sees the value',
    body: 'GrantUserPasscode',
    success: [201, 'Granted.', 'UserPasscodeAnswer'],
    errors: [...WRITE_ERRORS, 404, 409],
    serverRules: ['declaredScopes', 'cidrRanges'],
  },
  'DELETE /users/{userId}/passcode': {
    operationId: 'revokeUserPasscode',
    summary: 'Revoke a user passcode (admins)',
    success: [204, 'Revoked.'],
    errors: [400, 403, 404],
  },
  'GET /users/{userId}/passcode/usage': {
    operationId: 'getUserPasscodeUsage',
    summary: "Usage over time of a user's passcode (any member), as for an account passcode",
    success: [200, 'The kept days with requests, oldest first.', 'UsageAnswer'],
    errors: [400, 404],
  },
  'POST /users/{userId}/passcode/reset': {
    operationId: 'resetUserPasscode',
    summary: 'Reset a user passcode (admins): a fresh value, the old one stops at once',
    success: [200, 'The new view (no value).', 'UserPasscodeAnswer'],
    errors: [400, 403, 404],
  },
  'GET /me/passcode': {
    operationId: 'revealOwnUserPasscode',
    summary: "The caller's own user passcode with its value",
    success: [200, 'The view and the value.', 'IssuedUserPasscode'],
    errors: [404],
  },
  'GET /account': {
    operationId: 'getAccount',
    summary: "The account's setting and what the caller may do",
    success: [200, 'The account.', 'Account'],
    errors: [],
  },
  'PUT /account': {
    operationId: 'setAcceptedPasscodes',
    summary: 'Which passcodes the account accepts (admins)',
    body: 'SetAcceptedPasscodes',
    success: [200, 'The account with its new setting.', 'Account'],
    errors: WRITE_ERRORS,
  },
  'GET /account/policy': {
    operationId: 'getAccountPolicy',
    summary: "The account's passcode policy (SPEC §5.52): its own, or the host's default",
    success: [200, 'The policy in force.', 'AccountPolicy'],
    errors: [],
  },
  'PUT /account/policy': {
    operationId: 'setAccountPolicy',
    summary:
      "Set the account's passcode policy (admins): it replaces the host's default whole, a rule left out is off. Passcodes made before that break it keep working, are marked `violatesPolicy`, and the admins get one email saying how many",
    body: 'SetAccountPolicy',
    success: [200, 'The policy now in force.', 'AccountPolicy'],
    errors: WRITE_ERRORS,
  },
  'DELETE /account/policy': {
    operationId: 'resetAccountPolicy',
    summary: "Drop the account's own policy (admins): the host's default applies again",
    success: [200, 'The policy now in force (the default).', 'AccountPolicy'],
    errors: [403],
  },
  'GET /audit': {
    operationId: 'listAuditRecords',
    summary: "A page of the account's audit trail, newest first (admins); filters and paging in the query string",
    query: auditListQuerySchema,
    success: [200, 'The records (never a passcode value, hash or key) and the cursor of the next page.', 'AuditPage'],
    errors: [400, 403],

    serverRules: ['pageCursor'],
  },
  'GET /audit/export': {
    operationId: 'exportAuditRecords',
    summary: "The account's audit trail as JSON lines, oldest first (admins), for a SIEM or an archive",
    query: auditFilterQuerySchema,
    success: [200, 'A file (`Content-Disposition: attachment`) of JSON lines.'],
    successLines: [
      "One canonical JSON object per line, each `\\n`-terminated, oldest first: a record as `auth.audit.export` writes it, `at` in epoch milliseconds and `time` in ISO 8601. The schema is that of the lines as one array (how OpenAPI 3.2 maps a sequential media type); `x-oai-itemSchema` (the OpenAPI registry's extension for `itemSchema` before 3.2) is that of one line. Read the body as text or a stream and parse each line: generated clients parse a body as one JSON value by default (openapi-fetch: pass `parseAs: 'text'` or `'stream'`).",
      'AuditExportLine',
    ],
    errors: [400, 403],
  },
  'GET /webhooks': {
    operationId: 'listWebhooks',
    summary: "The account's webhook endpoints, oldest first (admins; never a secret)",
    success: [200, 'Every endpoint.', 'WebhookList'],
    errors: [403],
  },
  'POST /webhooks': {
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint (admins); its signing secret is in this answer only',
    body: 'CreateWebhook',
    success: [201, 'Registered; the only answer with its secret (`whsec_…`).', 'IssuedWebhook'],
    errors: [...WRITE_ERRORS, 409],
    serverRules: ['webhookAddress', 'normalisedLength'],
  },
  'PATCH /webhooks/{endpointId}': {
    operationId: 'updateWebhook',
    summary: 'Edit the URL, event types, description or enabled state of an endpoint (admins; enabling clears `failing`)',
    body: 'UpdateWebhook',
    success: [200, 'The new view.', 'WebhookAnswer'],
    errors: [...WRITE_ERRORS, 404],
    serverRules: ['webhookAddress', 'normalisedLength'],
  },
  'DELETE /webhooks/{endpointId}': {
    operationId: 'deleteWebhook',
    summary: 'Delete an endpoint and its deliveries (admins); pending ones are never sent',
    success: [204, 'Deleted.'],
    errors: [400, 403, 404],
  },
  'POST /webhooks/{endpointId}/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    summary: 'Issue a new signing secret (admins); the old one keeps signing for 24 h, so attempts carry both signatures',
    success: [201, 'Rotated; the only answer with the new secret.', 'IssuedWebhook'],
    errors: [400, 403, 404],
  },
  'POST /webhooks/{endpointId}/test': {
    operationId: 'sendTestWebhook',
    summary: 'Queue a `webhook.test` event to an endpoint (admins), whatever types it receives',
    success: [201, 'The delivery queued.', 'WebhookDeliveryAnswer'],
    errors: [400, 403, 404],
  },
  'GET /webhook-deliveries': {
    operationId: 'listWebhookDeliveries',
    summary: "A page of the account's webhook deliveries, newest first (admins): status, last code and time",
    query: webhookDeliveriesQuerySchema,
    success: [200, 'The deliveries and the cursor of the next page.', 'WebhookDeliveryPage'],
    errors: [400, 403],
    serverRules: ['pageCursor'],
  },
  'POST /webhook-deliveries/{deliveryId}/replay': {
    operationId: 'replayWebhookDelivery',
    summary: 'Send a delivery once more, now, with its `webhook-id` (admins)',
    success: [200, 'The delivery, pending.', 'WebhookDeliveryAnswer'],
    errors: [400, 403, 404],
  },
  'GET /partners': {
    operationId: 'listPartners',
    summary: "The operator's partner whitelist, read-only",
    success: [200, '`listed` is false when the registry cannot list its names.', 'PartnerList'],
    errors: [],
  },
  'GET /scopes': {
    operationId: 'listScopes',
    summary: 'The scopes the host declares (SPEC §5.48), read-only: what `scopes` of a passcode may list',
    success: [200, 'Empty when the host declares none.', 'ScopeList'],
    errors: [],
    storeFree: true,
  },
}

/** The path parameters, each the service's own schema of that ID. */
const PARAMETERS: Readonly<Record<string, { readonly schema: z.ZodType; readonly description: string }>> = {
  id: { schema: inputSchemas.passcodeId, description: 'The passcode ID.' },
  userId: { schema: inputSchemas.userId, description: 'The user ID (an empty one is a 400 on `userId`).' },
  endpointId: { schema: webhookInputSchemas.id, description: 'The webhook endpoint ID.' },
  deliveryId: { schema: webhookInputSchemas.id, description: 'The delivery ID: its `webhook-id`.' },
}

function parameter(name: string) {
  const known = PARAMETERS[name]
  if (known === undefined) throw new Error(`no schema for path parameter ${name}`)
  const { $schema: _dialect, ...schema } = z.toJSONSchema(known.schema, JSON_SCHEMA_OPTIONS) as Record<string, unknown>
  return { name, in: 'path', required: true, description: known.description, schema }
}

/** The query parameters of a route, each the JSON Schema of its field of the route's own schema. */
function queryParameters(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { $schema: _dialect, description, ...valueSchema } = z.toJSONSchema(field as z.ZodType, JSON_SCHEMA_OPTIONS) as Record<string, unknown>
    return { name, in: 'query', required: false, description, schema: valueSchema }
  })
}

/** Every status an operation documents a failure for. */
const failureStatuses = (operation: Operation) =>
  [...new Set([...operation.errors, ...COMMON_ERRORS.filter((status) => !(operation.storeFree && status >= 503))])].sort((a, b) => a - b)

/** The statuses of every failure some operation documents, each with its error body. */
function errorStatuses(): number[] {
  return [...new Set(Object.values(OPERATIONS).flatMap(failureStatuses))].sort((a, b) => a - b)
}

function successContent(operation: Operation, schema: ComponentName | undefined): Record<string, unknown> | undefined {
  if (operation.successLines !== undefined) {
    const [description, line] = operation.successLines
    return { 'application/x-ndjson': { schema: { type: 'array', items: ref(line), description }, 'x-oai-itemSchema': ref(line) } }
  }
  return schema === undefined ? undefined : json(ref(schema))
}

function operationObject(operation: Operation) {
  const [status, description, schema] = operation.success
  const content = successContent(operation, schema)
  const headers =
    operation.successLines === undefined
      ? CACHE_CONTROL
      : { ...CACHE_CONTROL, 'Content-Disposition': { $ref: '#/components/headers/ContentDisposition' } }
  const responses: Record<string, unknown> = { [status]: { description, headers, ...(content === undefined ? {} : { content }) } }
  for (const code of failureStatuses(operation)) responses[String(code)] = errorResponse(code, operation.serverRules ?? [])
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.query === undefined ? {} : { parameters: queryParameters(operation.query) }),
    ...(operation.body === undefined ? {} : { requestBody: { required: true, content: json(ref(operation.body)) } }),
    responses,
  }
}

function paths(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const [key, operation] of Object.entries(OPERATIONS)) {
    const [method, path] = key.split(' ') as [string, string]
    const item = (out[path] ??= {})
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)
    if (names.length > 0) item.parameters ??= names.map(parameter)
    item[method.toLowerCase()] = operationObject(operation)
  }
  return out
}

/** The OpenAPI 3.1 document of the management API. */
export function buildManagementOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'passcode-auth management API',
      version: '1',
      description:
        "JSON routes behind the dashboard (SPEC §5.29), served at `<mount>/api`. The account and the caller come from the host's session (`session` option of each mount), never from the URL or body. State-changing requests from another site are refused with 403 ERR_CROSS_SITE; bodies are `application/json` only; a query parameter an operation does not list, or one it lists given twice (but an array), is a 400 on that parameter; a method a path does not have gets 405 ERR_METHOD_NOT_ALLOWED with `Allow`, an unknown path 404 ERR_NOT_FOUND. Every answer is `Cache-Control: no-store`. Generated by `npm run openapi` from the zod schemas the service validates with and the routes answer with.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{mount}/api',
        description: "Below the path where the host mounts the dashboard, on the host's own origin.",
        variables: { mount: { default: '/settings', description: 'The mount path the host chose (`/settings` in docs/dashboard.md).' } },
      },
    ],
    security: [{ hostSession: [] }],
    paths: paths(),
    components: {
      securitySchemes: {
        hostSession: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `The signed-in user's session. A host that mounts the API uses its own sign-in: the mount's \`session\` function reads the request (its own cookie, under a name the host chose, or whatever carries its session) and says which account and user it is; the name here is then not the host's. The reference server (\`passcode-auth serve\`) signs its operator in with a one-time link that sets the cookie \`${SESSION_COOKIE}\` (\`HttpOnly; SameSite=Strict\`, \`Secure\` over HTTPS). passcode-auth defines no credential of its own here; without a session the API answers 401 ERR_UNAUTHENTICATED.`,
        },
      },
      headers: {
        CacheControl: {
          description: "Every answer: some carry a passcode value (SPEC §5.29), the rest are one account's private data.",
          required: true,
          schema: { type: 'string', const: 'no-store' },
        },
        ContentDisposition: {
          description: 'A download: `attachment` with a file name made of the account ID.',
          required: true,
          schema: { type: 'string', pattern: '^attachment; filename="[A-Za-z0-9._-]+"$' },
        },
      },
      schemas: componentSchemas(),
    },
  }
}

/** The document as committed: two-space JSON and a final newline. */
export function managementOpenApiText(): string {
  return `${JSON.stringify(buildManagementOpenApi(), null, 2)}\n`
}

/** `METHOD /path` of every route in the router, in OpenAPI path syntax, for the test. */
export function routerOperations(): string[] {
  return ROUTES.map((route) => `${route.method} /${route.pattern.map((part) => (part.startsWith(':') ? `{${part.slice(1)}}` : part)).join('/')}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(MANAGEMENT_OPENAPI_FILE, managementOpenApiText())
  console.log(`wrote ${MANAGEMENT_OPENAPI_FILE}`)
}
