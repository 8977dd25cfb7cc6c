import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import { ROUTES } from '../src/http/management/routes'
import { DuplicateNameError, ForbiddenError, InvalidInputError, NotFoundError, StorageError, StorageTimeoutError } from '../src/core/errors'
import { MAX_BODY_BYTES } from '../src/http/management/read-json'
import {
  MANAGEMENT_ERROR_STATUS,
  managementErrorAnswer,
  managementErrorBodySchema,
  managementFailure,
  type ManagementErrorCode,
  type ManagementFailure,
} from '../src/protocol/management-errors'
import {
  accountAnswerSchema,
  issuedPasscodeSchema,
  issuedUserPasscodeSchema,
  partnerListSchema,
  passcodeAnswerSchema,
  passcodeListSchema,
  passcodeViewSchema,
  setAcceptedPasscodesBodySchema,
  userListSchema,
  userPasscodeAnswerSchema,
  userPasscodeViewSchema,
  usageAnswerSchema,
} from '../src/protocol/management-schemas'
import { auditFilterQuerySchema, auditListQuerySchema, auditPageSchema, auditRecordSchema } from '../src/protocol/management-audit'
import { inputSchemas } from '../src/service/input'
import { JSON_SCHEMA_OPTIONS } from './json-schema-options'

/**
 * Generates docs/management-openapi.json, the OpenAPI 3.1 document of the management
 * API (SPEC §5.29) that the dashboard and the framework mounts serve under
 * `<mount>/api`. Every schema in it is `z.toJSONSchema` of a zod schema the code uses:
 * the request bodies are the service's input schemas (src/service/input.ts), the
 * answers those the routes encode their bodies with (src/protocol/management-schemas.ts),
 * the error body and the codes of each status the one error table
 * (src/protocol/management-errors.ts). This file adds only prose, operation IDs and
 * which route answers with which schema. test/docs/management-openapi.test.ts checks
 * that every route of src/http/management/routes.ts is described, that the committed
 * file is this output (`npm run openapi` rewrites both documents), and replays requests
 * against the committed document.
 */

/** Where the document is written. */
export const MANAGEMENT_OPENAPI_FILE = fileURLToPath(new URL('../docs/management-openapi.json', import.meta.url))

/** The named schemas, in `components.schemas`, in this order; operations refer to them by name. */
const COMPONENTS = {
  Error: managementErrorBodySchema,
  Passcode: passcodeViewSchema,
  UserPasscode: userPasscodeViewSchema,
  PasscodeList: passcodeListSchema,
  PasscodeAnswer: passcodeAnswerSchema,
  IssuedPasscode: issuedPasscodeSchema,
  UserList: userListSchema,
  UserPasscodeAnswer: userPasscodeAnswerSchema,
  IssuedUserPasscode: issuedUserPasscodeSchema,
  Account: accountAnswerSchema,
  PartnerList: partnerListSchema,
  UsageAnswer: usageAnswerSchema,
  AuditRecord: auditRecordSchema,
  AuditPage: auditPageSchema,
  CreatePasscode: inputSchemas.create,
  UpdatePasscode: inputSchemas.update,
  RotatePasscode: inputSchemas.rotate,
  GrantUserPasscode: inputSchemas.grant,
  SetAcceptedPasscodes: setAcceptedPasscodesBodySchema,
} as const satisfies Record<string, z.ZodType>

type ComponentName = keyof typeof COMPONENTS

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` })

/**
 * JSON Schema of every component (see {@link JSON_SCHEMA_OPTIONS}), each reference to
 * another component a `$ref`.
 */
function componentSchemas(): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>()
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id })
  const { schemas } = z.toJSONSchema(registry, { ...JSON_SCHEMA_OPTIONS, uri: (id) => `#/components/schemas/${id}` })
  return Object.fromEntries(
    Object.keys(COMPONENTS).map((id) => {
      const { $schema: _dialect, $id: _id, ...schema } = schemas[id] as Record<string, unknown>
      return [id, schema]
    }),
  )
}

const json = (schema: unknown, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } })

const codesWith = (status: number): ManagementErrorCode[] =>
  (Object.entries(MANAGEMENT_ERROR_STATUS) as [ManagementErrorCode, number][]).filter(([, code]) => code === status).map(([code]) => code)

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid input: the body, a query parameter, or an ID in the path that is not 1 to 256 visible ASCII characters (an empty one too); `field` names the input at fault (`userId` for the user ID, the parameter by its name).',
  401: 'No session: the host resolver returned nothing.',
  403: 'The signed-in user may not do this, or the request came from another site (CSRF).',
  404: 'No such passcode or user in this account (also for ids of other accounts).',
  409: 'Conflicts with the current state: duplicate name, cap reached, already granted, reactivation or rotation refused.',
  413: 'The body is larger than 16 KiB.',
  415: 'The body is not `application/json`.',
  500: 'A configuration error of the host (its code says which), or an internal error (no detail).',
  503: 'The passcode store is unavailable.',
  504: 'The passcode store did not answer in time.',
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

function errorResponse(status: number) {
  const example = ERROR_EXAMPLES[status]
  if (example?.statusCode !== status) throw new Error(`no example failure for ${status}`)
  return {
    description: `${ERROR_TEXT[status]} Codes: ${codesWith(status).join(', ')}.`,
    content: json(ref('Error'), example.body),
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
  /** A success body that is not JSON: its media type and what it holds. */
  readonly successMedia?: readonly [mediaType: string, description: string]
}

/** Every route of src/http/management/routes.ts, as `METHOD /path` in OpenAPI path syntax. */
const OPERATIONS: Readonly<Record<string, Operation>> = {
  'GET /passcodes': {
    operationId: 'listPasscodes',
    summary: "List the account's passcodes (any member; never a value)",
    success: [200, 'Every passcode, expired ones included.', 'PasscodeList'],
    errors: [],
  },
  'POST /passcodes': {
    operationId: 'createPasscode',
    summary: 'Create a passcode; its value is in this answer only',
    body: 'CreatePasscode',
    success: [201, 'Created. `Cache-Control: no-store`.', 'IssuedPasscode'],
    errors: [...WRITE_ERRORS, 409],
  },
  'PATCH /passcodes/{id}': {
    operationId: 'updatePasscode',
    summary: 'Edit the name, expiry (counted from now) or partner binding',
    body: 'UpdatePasscode',
    success: [200, 'The new view.', 'PasscodeAnswer'],
    errors: [...WRITE_ERRORS, 404, 409],
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
    success: [201, 'Rotated. `Cache-Control: no-store`.', 'IssuedPasscode'],
    errors: [...WRITE_ERRORS, 404, 409],
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
    success: [200, '`Cache-Control: no-store`.', 'IssuedUserPasscode'],
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
  'GET /audit': {
    operationId: 'listAuditRecords',
    summary: "A page of the account's audit trail, newest first (admins); filters and paging in the query string",
    query: auditListQuerySchema,
    success: [200, 'The records (never a passcode value, hash or key) and the cursor of the next page.', 'AuditPage'],
    errors: [400, 403],
  },
  'GET /audit/export': {
    operationId: 'exportAuditRecords',
    summary: "The account's audit trail as JSON lines, oldest first (admins), for a SIEM or an archive",
    query: auditFilterQuerySchema,
    success: [200, 'A file (`Content-Disposition: attachment`).'],
    successMedia: [
      'application/x-ndjson',
      'One canonical JSON object per line, each `\\n`-terminated: a record as `auth.audit.export` writes it, `at` in epoch milliseconds and `time` in ISO 8601.',
    ],
    errors: [400, 403],
  },
  'GET /partners': {
    operationId: 'listPartners',
    summary: "The operator's partner whitelist, read-only",
    success: [200, '`listed` is false when the registry cannot list its names.', 'PartnerList'],
    errors: [],
  },
}

/** The path parameters, each the service's own schema of that ID. */
const PARAMETERS: Readonly<Record<string, { readonly schema: z.ZodType; readonly description: string }>> = {
  id: { schema: inputSchemas.passcodeId, description: 'The passcode ID.' },
  userId: { schema: inputSchemas.userId, description: 'The user ID (an empty one is a 400 on `userId`).' },
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

function operationObject(operation: Operation) {
  const [status, description, schema] = operation.success
  const content =
    operation.successMedia !== undefined
      ? { [operation.successMedia[0]]: { schema: { type: 'string', description: operation.successMedia[1] } } }
      : schema === undefined
        ? undefined
        : json(ref(schema))
  const responses: Record<string, unknown> = { [status]: { description, ...(content === undefined ? {} : { content }) } }
  for (const code of [...operation.errors, ...COMMON_ERRORS].sort()) responses[String(code)] = errorResponse(code)
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
        "JSON routes behind the dashboard (SPEC §5.29), served at `<mount>/api`. The account and the caller come from the host's session (`session` option of each mount), never from the URL or body. State-changing requests from another site are refused with 403 ERR_CROSS_SITE; bodies are `application/json` only; a method a path does not have gets 405 ERR_METHOD_NOT_ALLOWED with `Allow`, an unknown path 404 ERR_NOT_FOUND. Every answer is `Cache-Control: no-store`. Generated by `npm run openapi` from the zod schemas the service validates with and the routes answer with.",
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
          name: 'session',
          description:
            "The host's own sign-in session, whatever carries it (usually a cookie, under a name the host chose): the mount's `session` function reads it and says which account and user it is. passcode-auth defines no credential of its own here; without a session the API answers 401 ERR_UNAUTHENTICATED.",
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
