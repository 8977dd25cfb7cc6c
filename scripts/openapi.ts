import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import {
  connectResponseSchemas,
  connectSuccessBodySchema,
  invalidCredentialsBodySchema,
  missingPartnerBodySchema,
  partnerNotWhitelistedBodySchema,
  passcodeExpiredBodySchema,
  rateLimitedBodySchema,
  serverErrorBodySchema,
} from '../src/protocol/connect-response-schemas'
import { CONNECT_SUCCESS, FAILURES, partnerNotWhitelisted, RESPONSE_HEADERS } from '../src/protocol/outcomes'
import { JSON_SCHEMA_OPTIONS } from './json-schema-options'

/**
 * Generates docs/openapi.json, the OpenAPI 3.1 document of `GET /v1/connect`, from the
 * zod schemas of the answers (src/protocol/connect-response-schemas.ts) and the examples
 * from the server's one table of answers (src/protocol/outcomes.ts). Run `npm run openapi`
 * after changing either; test/docs/openapi.test.ts fails while the committed file differs
 * from this output, and test/docs/openapi-contract.test.ts replays requests against it.
 */

/** Where the document is written. */
export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url))

const NAMED: readonly (readonly [string, z.ZodType])[] = [
  ['ConnectSuccess', connectSuccessBodySchema],
  ['InvalidCredentials', invalidCredentialsBodySchema],
  ['MissingPartner', missingPartnerBodySchema],
  ['PasscodeExpired', passcodeExpiredBodySchema],
  ['PartnerNotWhitelisted', partnerNotWhitelistedBodySchema],
  ['RateLimited', rateLimitedBodySchema],
  ['ServerError', serverErrorBodySchema],
]

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a body, as clients should read it: extra fields allowed. */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, JSON_SCHEMA_OPTIONS) as Record<string, unknown>
  return rest
}

function reference(schema: z.ZodType): Record<string, unknown> {
  const name = NAMED.find(([, named]) => named === schema)?.[0]
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` }
  const def = (schema as unknown as { _zod: { def: { type: string; options?: z.ZodType[] } } })._zod.def
  if (def.type === 'union' && def.options !== undefined) return { oneOf: def.options.map(reference) }
  return jsonSchema(schema)
}

const DESCRIPTIONS: Readonly<Record<keyof typeof connectResponseSchemas, string>> = {
  200: 'Valid credentials and a whitelisted partner.',
  400: 'The account ID or passcode is wrong, missing or malformed (one body for every case), or, with valid credentials, no partner was named.',
  401: 'The passcode belongs to this account but has expired.',
  403: 'Valid credentials, but the partner is not whitelisted. The text echoes the partner name (control characters removed, at most 128 characters).',
  429: 'Only when the service enables its brute-force limiter: too many failed attempts (400 and 401 answers) from this client address or for this account ID within the window. Answered before any credential check, so valid credentials get it too; wait as long as `Retry-After` says.',
  503: 'The service or its storage failed.',
  504: 'The storage did not answer within the deadline.',
}

const EXAMPLES: Readonly<Record<keyof typeof connectResponseSchemas, Record<string, { value: unknown }>>> = {
  200: { success: { value: CONNECT_SUCCESS.body } },
  400: { invalidCredentials: { value: FAILURES.unknown_passcode.body }, missingPartner: { value: FAILURES.missing_partner.body } },
  401: { expired: { value: FAILURES.expired.body } },
  403: { notWhitelisted: { value: partnerNotWhitelisted('globex').body } },
  429: { rateLimited: { value: FAILURES.rate_limited.body } },
  503: { unavailable: { value: FAILURES.storage_error.body } },
  504: { timeout: { value: FAILURES.storage_timeout.body } },
}

/** The header the limiter sends with its 429 (src/service/limiter/rate-limit.ts). */
const RETRY_AFTER = {
  description: 'Whole seconds (at least 1) until the oldest counted failure leaves the window.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
}

/** The header of a 200 authenticated by a passcode in its last days (src/protocol/sunset.ts). */
const SUNSET = {
  description:
    'Only when the passcode sent is in its last days (`limits.expiringSoonDays`, 30 by default) and the service keeps its `sunsetHeader` option on: the instant it stops working, as an HTTP-date (RFC 8594).',
  schema: { type: 'string', examples: ['Sat, 31 Jan 2026 00:00:00 GMT'] },
}

/** The OpenAPI 3.1 document of `GET /v1/connect`. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const responses = Object.fromEntries(
    Object.entries(connectResponseSchemas).map(([status, schema]: [string, z.ZodType]) => {
      const code = Number(status) as keyof typeof connectResponseSchemas
      return [
        status,
        {
          description: DESCRIPTIONS[code],
          headers: {
            'Cache-Control': { schema: { type: 'string', const: RESPONSE_HEADERS['cache-control'] } },
            ...(code === 200 ? { Sunset: SUNSET } : {}),
            ...(code === 429 ? { 'Retry-After': RETRY_AFTER } : {}),
          },
          content: { 'application/json': { schema: reference(schema), examples: EXAMPLES[code] } },
        },
      ]
    }),
  )
  return {
    openapi: '3.1.0',
    info: {
      title: 'passcode-auth: GET /v1/connect',
      version: '1',
      summary: "Lets a partner check a customer's account ID and passcode.",
      description:
        'Credentials are checked first, then the partner: a caller without valid credentials never learns whether a partner is whitelisted. ' +
        'Missing, empty, repeated, over-long (> 256 bytes) or non-ASCII credential headers are answered like wrong ones (400), not with 401. ' +
        'Generated by `npm run openapi` from the zod schemas of its answers (src/protocol/connect-response-schemas.ts).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{baseUrl}',
        description: "The service's base URL for the account's region.",
        variables: {
          baseUrl: {
            default: 'http://127.0.0.1:3000',
            description: 'Regional base URL; `passcode-auth serve` listens on http://127.0.0.1:3000 by default.',
          },
        },
      },
    ],
    paths: {
      '/v1/connect': {
        get: {
          operationId: 'connect',
          summary: "Check a customer's credentials for a partner",
          parameters: [
            {
              name: 'partner',
              in: 'query',
              required: true,
              description:
                'The partner\'s name, whitelisted by the service operator. Compared trimmed and case-insensitively. Missing, blank or repeated: 400 "Missing partner" (after authentication).',
              schema: { type: 'string' },
            },
          ],
          security: [{ accountId: [], passcode: [] }],
          responses,
        },
      },
    },
    components: {
      securitySchemes: {
        accountId: { type: 'apiKey', in: 'header', name: 'X-Service-Account-Id', description: 'The account ID: 1 to 256 visible ASCII characters.' },
        passcode: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Passcode',
          description: "An account passcode, or the caller's user passcode when the account accepts them: 1 to 256 visible ASCII characters.",
        },
      },
      schemas: Object.fromEntries(NAMED.map(([name, schema]) => [name, jsonSchema(schema)])),
    },
  }
}

/** The file's exact text: two-space JSON and a final newline. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(OPENAPI_FILE, openApiText())
  console.log(`wrote ${OPENAPI_FILE}`)
}
