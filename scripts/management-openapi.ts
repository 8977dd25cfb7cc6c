import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ROUTES } from '../src/http/management/routes'
import { MAX_IDENTIFIER_LENGTH } from '../src/core/rules'
import { MANAGEMENT_ERROR_STATUS, type ManagementErrorCode } from '../src/protocol/management-errors'

/**
 * Generates docs/management-openapi.json, the OpenAPI 3.1 document of the management
 * API (SPEC §5.29) that the dashboard and the framework mounts serve under
 * `<mount>/api`. The error codes of each status come from the one error table
 * (src/protocol/management-errors.ts); test/docs/management-openapi.test.ts checks
 * that every route of src/http/management/routes.ts is described, and that the
 * committed file is this output (`npm run openapi` rewrites both documents).
 */

/** Where the document is written. */
export const MANAGEMENT_OPENAPI_FILE = fileURLToPath(new URL('../docs/management-openapi.json', import.meta.url))

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: unknown) => ({ 'application/json': { schema } })
const dateTime = { type: 'string', format: 'date-time' }
const nullable = (schema: object) => ({ oneOf: [schema, { type: 'null' }] })

const codesWith = (status: number): ManagementErrorCode[] =>
  (Object.entries(MANAGEMENT_ERROR_STATUS) as [ManagementErrorCode, number][]).filter(([, code]) => code === status).map(([code]) => code)

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid input: the body, or an ID in the path that is not 1 to 256 visible ASCII characters (an empty one too); `field` names the input at fault (`userId` for the user ID).',
  401: 'No session: the host resolver returned nothing.',
  403: 'The signed-in user may not do this, or the request came from another site (CSRF).',
  404: 'No such passcode or user in this account (also for ids of other accounts).',
  405: 'Not a method of this route; `Allow` lists those that are.',
  409: 'Conflicts with the current state: duplicate name, cap reached, already granted, reactivation or rotation refused.',
  413: 'The body is larger than 16 KiB.',
  415: 'The body is not `application/json`.',
  500: 'A configuration error of the host (its code says which), or an internal error (no detail).',
  503: 'The passcode store is unavailable.',
  504: 'The passcode store did not answer in time.',
}

function errorResponse(status: number) {
  return {
    description: `${ERROR_TEXT[status]} Codes: ${codesWith(status).join(', ')}.`,
    content: json(ref('Error')),
  }
}

const COMMON_ERRORS = [401, 500, 503, 504]
function responses(success: Record<string, unknown>, errors: number[]) {
  const out: Record<string, unknown> = { ...success }
  for (const status of [...errors, ...COMMON_ERRORS].sort()) out[String(status)] = errorResponse(status)
  return out
}

const body = (schema: unknown) => ({ required: true, content: json(schema) })
const WRITE_ERRORS = [400, 403, 413, 415]
// SPEC §5.4: IDs are 1 to 256 visible ASCII characters; anything else, an empty segment included, is a 400.
const identifier = { type: 'string', minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH, pattern: '^[\\x21-\\x7E]+$' }
const passcodeId = { name: 'id', in: 'path', required: true, schema: identifier }
const userId = { name: 'userId', in: 'path', required: true, schema: identifier }

const expiry = { oneOf: [{ type: 'integer', minimum: 1, maximum: 3650 }, { const: 'forever' }], description: 'Whole days from now, or "forever".' }
const validity = {
  oneOf: [
    { type: 'object', required: ['type', 'days'], additionalProperties: false, properties: { type: { const: 'finite' }, days: { type: 'integer', minimum: 1, maximum: 365 } } },
    { type: 'object', required: ['type'], additionalProperties: false, properties: { type: { const: 'infinite' } } },
  ],
}
const status = { enum: ['active', 'expiring_soon', 'expired', 'revoked', 'disabled'] }
const description = {
  type: 'string',
  maxLength: 500,
  description: 'What the passcode is for: up to 500 characters, newlines allowed (`\\r\\n` is stored as `\\n`), no other control character; stored trimmed, in NFC.',
}
const passcodeAnswer = json({ type: 'object', required: ['passcode'], properties: { passcode: ref('Passcode') } })

const PATHS: Record<string, Record<string, unknown>> = {
  '/passcodes': {
    get: {
      summary: "List the account's passcodes (any member; never a value)",
      responses: responses({ 200: { description: 'Every passcode, expired ones included.', content: json({ type: 'object', required: ['passcodes'], properties: { passcodes: { type: 'array', items: ref('Passcode') } } }) } }, []),
    },
    post: {
      summary: 'Create a passcode; its value is in this answer only',
      requestBody: body({
        type: 'object',
        required: ['name', 'expiry'],
        properties: { name: { type: 'string', minLength: 1, maxLength: 64 }, expiry, partners: { type: 'array', items: { type: 'string' } }, description },
      }),
      responses: responses({ 201: { description: 'Created. `Cache-Control: no-store`.', content: json(ref('IssuedPasscode')) } }, [...WRITE_ERRORS, 409]),
    },
  },
  '/passcodes/{id}': {
    parameters: [passcodeId],
    patch: {
      summary: 'Edit the name, expiry (counted from now), partner binding or description',
      requestBody: body({
        type: 'object',
        minProperties: 1,
        properties: {
          name: { type: 'string' },
          expiry,
          partners: nullable({ type: 'array', items: { type: 'string' } }),
          description: { ...nullable(description), description: 'A new description; `""` or null removes it.' },
        },
      }),
      responses: responses({ 200: { description: 'The new view.', content: json({ type: 'object', required: ['passcode'], properties: { passcode: ref('Passcode') } }) } }, [...WRITE_ERRORS, 404, 409]),
    },
    delete: {
      summary: 'Delete a passcode; calls with it fail at once',
      responses: responses({ 204: { description: 'Deleted.' } }, [400, 403, 404]),
    },
  },
  '/passcodes/{id}/rotate': {
    parameters: [passcodeId],
    post: {
      summary: 'Issue a new value; the old one keeps working for the overlap',
      requestBody: body({ type: 'object', required: ['overlapMinutes'], properties: { overlapMinutes: { type: 'integer', minimum: 0, maximum: 10080 } } }),
      responses: responses({ 201: { description: 'Rotated. `Cache-Control: no-store`.', content: json(ref('IssuedPasscode')) } }, [...WRITE_ERRORS, 404, 409]),
    },
  },
  '/passcodes/{id}/disable': {
    parameters: [passcodeId],
    post: {
      summary: 'Disable without deleting: calls with it fail at once, as with an unknown passcode; it keeps its value, name, binding and expiry',
      responses: responses(
        { 200: { description: 'The view, status `disabled`. Also 200 when it was disabled already (nothing changes).', content: passcodeAnswer } },
        [400, 403, 404],
      ),
    },
  },
  '/passcodes/{id}/enable': {
    parameters: [passcodeId],
    post: {
      summary: 'Enable a disabled passcode: it works again at once',
      responses: responses(
        { 200: { description: 'The view. Also 200 when it was enabled already (nothing changes).', content: passcodeAnswer } },
        [400, 403, 404],
      ),
    },
  },
  '/users': {
    get: {
      summary: "The account's user passcodes (no values), with the host's directory when it has one",
      responses: responses(
        {
          200: {
            description: '`directory` says whether the host gave a user directory.',
            content: json({
              type: 'object',
              required: ['users', 'directory'],
              properties: {
                directory: { type: 'boolean' },
                users: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id', 'inDirectory', 'passcode'],
                    properties: {
                      id: { type: 'string' },
                      name: { type: 'string' },
                      email: { type: 'string' },
                      inDirectory: { type: 'boolean', description: "Whether the host's directory lists the user; false without a directory." },
                      passcode: nullable(ref('UserPasscode')),
                    },
                  },
                },
              },
            }),
          },
        },
        [],
      ),
    },
  },
  '/users/{userId}/passcode': {
    parameters: [userId],
    get: {
      summary: "A user's passcode view (no value)",
      responses: responses({ 200: { description: 'The view.', content: json({ type: 'object', properties: { passcode: ref('UserPasscode') } }) } }, [400, 404]),
    },
    put: {
      summary: 'Grant a user passcode (admins); the admin never sees the value',
      requestBody: body({ type: 'object', required: ['validity'], properties: { validity } }),
      responses: responses({ 201: { description: 'Granted.', content: json({ type: 'object', properties: { passcode: ref('UserPasscode') } }) } }, [...WRITE_ERRORS, 404, 409]),
    },
    delete: {
      summary: 'Revoke a user passcode (admins)',
      responses: responses({ 204: { description: 'Revoked.' } }, [400, 403, 404]),
    },
  },
  '/users/{userId}/passcode/reset': {
    parameters: [userId],
    post: {
      summary: 'Reset a user passcode (admins): a fresh value, the old one stops at once',
      responses: responses({ 200: { description: 'The new view (no value).', content: json({ type: 'object', properties: { passcode: ref('UserPasscode') } }) } }, [400, 403, 404]),
    },
  },
  '/me/passcode': {
    get: {
      summary: "The caller's own user passcode with its value",
      responses: responses({ 200: { description: '`Cache-Control: no-store`.', content: json(ref('IssuedUserPasscode')) } }, [404]),
    },
  },
  '/account': {
    get: {
      summary: "The account's setting and what the caller may do",
      responses: responses({ 200: { description: 'The account.', content: json(ref('Account')) } }, []),
    },
    put: {
      summary: 'Which passcodes the account accepts (admins)',
      requestBody: body({ type: 'object', required: ['acceptedPasscodes'], properties: { acceptedPasscodes: { enum: ['account', 'user', 'both'] } } }),
      responses: responses({ 200: { description: 'The account with its new setting.', content: json(ref('Account')) } }, WRITE_ERRORS),
    },
  },
  '/partners': {
    get: {
      summary: "The operator's partner whitelist, read-only",
      responses: responses(
        {
          200: {
            description: '`listed` is false when the registry cannot list its names.',
            content: json({ type: 'object', required: ['partners', 'listed'], properties: { partners: { type: 'array', items: { type: 'string' } }, listed: { type: 'boolean' } } }),
          },
        },
        [],
      ),
    },
  },
}

const SCHEMAS = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { enum: Object.keys(MANAGEMENT_ERROR_STATUS) },
          message: { type: 'string' },
          field: { type: 'string', description: 'The input field at fault, for ERR_INVALID_INPUT.' },
        },
      },
    },
    examples: [{ error: { code: 'ERR_INVALID_INPUT', message: 'Invalid expiry: must be at least 1 day', field: 'expiry' } }],
  },
  Passcode: {
    type: 'object',
    required: ['id', 'accountId', 'name', 'hint', 'expiry', 'createdAt', 'updatedAt', 'expiresAt', 'status', 'disabledAt', 'description'],
    properties: {
      id: { type: 'string' },
      accountId: { type: 'string' },
      name: { type: 'string' },
      hint: { type: 'string', description: 'Prefix and last 4 characters.' },
      expiry,
      createdAt: dateTime,
      updatedAt: dateTime,
      expiresAt: nullable(dateTime),
      status,
      disabledAt: { ...nullable(dateTime), description: 'When it was disabled; null while enabled.' },
      description: { ...description, description: 'What the passcode is for; `""` when none.' },
      partners: nullable({ type: 'array', items: { type: 'string' } }),
      lastUsedAt: nullable(dateTime),
      lastUsedPartner: nullable({ type: 'string' }),
    },
  },
  UserPasscode: {
    type: 'object',
    required: ['accountId', 'userId', 'hint', 'validity', 'grantedAt', 'expiresAt', 'revokedAt', 'status'],
    properties: { accountId: { type: 'string' }, userId: { type: 'string' }, hint: { type: 'string' }, validity, grantedAt: dateTime, expiresAt: dateTime, revokedAt: nullable(dateTime), status },
  },
  IssuedPasscode: {
    type: 'object',
    required: ['passcode', 'value'],
    properties: { passcode: ref('Passcode'), value: { type: 'string', description: 'Shown once; the service keeps only its hash.' } },
  },
  IssuedUserPasscode: { type: 'object', required: ['passcode', 'value'], properties: { passcode: ref('UserPasscode'), value: { type: 'string' } } },
  Account: {
    type: 'object',
    required: ['account', 'actor'],
    properties: {
      account: { type: 'object', required: ['id', 'acceptedPasscodes'], properties: { id: { type: 'string' }, acceptedPasscodes: { enum: ['account', 'user', 'both'] } } },
      actor: {
        type: 'object',
        required: ['userId', 'role', 'canManagePasscodes', 'canManageUsers'],
        properties: { userId: { type: 'string' }, role: { enum: ['admin', 'member'] }, canManagePasscodes: { type: 'boolean' }, canManageUsers: { type: 'boolean' } },
      },
    },
  },
}

/** The OpenAPI 3.1 document of the management API. */
export function buildManagementOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'passcode-auth management API',
      version: '1',
      description:
        "JSON routes behind the dashboard (SPEC §5.29), served at `<mount>/api`. The account and the caller come from the host's session (`session` option of each mount), never from the URL or body. State-changing requests from another site are refused with 403 ERR_CROSS_SITE; bodies are `application/json` only. Every answer is `Cache-Control: no-store`.",
    },
    paths: PATHS,
    components: { schemas: SCHEMAS },
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
