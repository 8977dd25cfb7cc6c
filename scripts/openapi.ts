import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import { credentialHeaderSchema, partnerParameterSchema } from '../src/protocol/connect-request-schemas'
import {
  connectResponseSchemas,
  connectSuccessBodySchema,
  invalidCredentialsBodySchema,
  methodNotAllowedBodySchema,
  missingPartnerBodySchema,
  partnerNotWhitelistedBodySchema,
  addressNotAllowedBodySchema,
  passcodeExpiredBodySchema,
  rateLimitedBodySchema,
  serverErrorBodySchema,
} from '../src/protocol/connect-response-schemas'
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS } from '../src/protocol/cors'
import { CONNECT_SUCCESS, FAILURES, partnerNotWhitelisted, RESPONSE_HEADERS } from '../src/protocol/outcomes'
import { JSON_SCHEMA_OPTIONS } from './json-schema-options'

/**
 * Generates docs/openapi.json, the OpenAPI 3.1 document of `/v1/connect`, from the zod
 * schemas of its answers (src/protocol/connect-response-schemas.ts) and of what a request
 * sends (src/protocol/connect-request-schemas.ts), with the examples from the server's one
 * table of answers (src/protocol/outcomes.ts). Run `npm run openapi` after changing
 * either; test/docs/openapi.test.ts fails while the committed file differs from this
 * output, and test/docs/openapi-contract.test.ts drives a client generated from it.
 */

/** Where the document is written. */
export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url))

const NAMED: readonly (readonly [string, z.ZodType])[] = [
  ['ConnectSuccess', connectSuccessBodySchema],
  ['InvalidCredentials', invalidCredentialsBodySchema],
  ['MissingPartner', missingPartnerBodySchema],
  ['PasscodeExpired', passcodeExpiredBodySchema],
  ['PartnerNotWhitelisted', partnerNotWhitelistedBodySchema],
  ['AddressNotAllowed', addressNotAllowedBodySchema],
  ['RateLimited', rateLimitedBodySchema],
  ['ServerError', serverErrorBodySchema],
  ['MethodNotAllowed', methodNotAllowedBodySchema],
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
  if (def.type === 'union' && def.options !== undefined) {
    // `oneOf` when each body has its own fixed text; else (a text with a pattern, such as
    // the partner's 403) `anyOf`: the bodies still never overlap, but a linter cannot tell.
    const fixed = def.options.every(
      (option) => typeof (jsonSchema(option).properties as { error?: { const?: unknown } } | undefined)?.error?.const === 'string',
    )
    return { [fixed ? 'oneOf' : 'anyOf']: def.options.map(reference) }
  }
  return jsonSchema(schema)
}

type Status = keyof typeof connectResponseSchemas

/**
 * The 400s the request schemas cannot state, named in the 400's description; the contract
 * test (test/docs/openapi-contract.test.ts) names one of these for each refused request
 * that the schemas accept.
 */
export const CONNECT_SERVER_RULES = {
  credentials: "whether an account ID and passcode match a live passcode of the account is the server's state",
} as const

const DESCRIPTIONS: Readonly<Record<Status, string>> = {
  200: 'Valid credentials and a whitelisted partner.',
  400: `The account ID or passcode is wrong, missing or malformed (one body for every case), or, with valid credentials, no partner was named. Of these, only wrong credentials pass the request schemas: ${CONNECT_SERVER_RULES.credentials}.`,
  401: 'The passcode belongs to this account but has expired.',
  403: 'Valid credentials, but the partner is not whitelisted (the text echoes the partner name, control characters removed, at most 128 characters), or the passcode has an address allowlist (SPEC §5.49) that the caller\'s address is outside of: "Address not allowed".',
  429: 'Only when the service enables its brute-force limiter: too many failed attempts (400 and 401 answers) from this client address or for this account ID within the window. Answered before any credential check, so valid credentials get it too; wait as long as `Retry-After` says.',
  503: 'The service or its storage failed.',
  504: 'The storage did not answer within the deadline.',
}

const EXAMPLES: Readonly<Record<Status, Record<string, { value: unknown }>>> = {
  200: { success: { value: CONNECT_SUCCESS.body } },
  400: { invalidCredentials: { value: FAILURES.unknown_passcode.body }, missingPartner: { value: FAILURES.missing_partner.body } },
  401: { expired: { value: FAILURES.expired.body } },
  403: { notWhitelisted: { value: partnerNotWhitelisted('globex').body }, addressNotAllowed: { value: FAILURES.address_not_allowed.body } },
  429: { rateLimited: { value: FAILURES.rate_limited.body } },
  503: { unavailable: { value: FAILURES.storage_error.body } },
  504: { timeout: { value: FAILURES.storage_timeout.body } },
}

const CORS_WHEN =
  "Only when the service lets browser pages of some origins call it (the connect handler's `cors` option, SPEC §5.30) and the request's `Origin` is one of them"

/** The response headers, in `components.headers`; a response names those it may carry. */
const HEADERS = {
  CacheControl: { description: 'Every answer.', required: true, schema: { type: 'string', const: RESPONSE_HEADERS['cache-control'] } },
  Sunset: {
    description:
      'Only when the passcode sent is in its last days (`limits.expiringSoonDays`, 30 by default) and the service keeps its `sunsetHeader` option on: the instant it stops working, as an HTTP-date (RFC 8594).',
    schema: { type: 'string', examples: ['Sat, 31 Jan 2026 00:00:00 GMT'] },
  },
  // The header the limiter sends with its 429 (src/service/limiter/rate-limit.ts).
  RetryAfter: {
    description: 'Whole seconds (at least 1) until the oldest counted failure leaves the window.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  Allow: {
    description: 'The methods `/v1/connect` answers.',
    required: true,
    schema: { type: 'string', const: FAILURES.method_not_allowed.headers!.allow },
  },
  AccessControlAllowOrigin: { description: `${CORS_WHEN}: that origin.`, schema: { type: 'string' } },
  AccessControlExposeHeaders: { description: `${CORS_WHEN}.`, schema: { type: 'string', const: CORS_EXPOSE_HEADERS } },
  Vary: { description: `${CORS_WHEN}: \`Origin\`.`, schema: { type: 'string', const: 'Origin' } },
  PreflightAllowOrigin: { description: 'The origin of the preflight.', required: true, schema: { type: 'string' } },
  PreflightAllowMethods: { description: 'The methods a page may use.', required: true, schema: { type: 'string', const: CORS_ALLOW_METHODS } },
  PreflightAllowHeaders: {
    description: 'The request headers a page may send: the two credential headers.',
    required: true,
    schema: { type: 'string', const: CORS_ALLOW_HEADERS },
  },
  PreflightMaxAge: {
    description: "How long a browser may reuse this answer, in seconds (the `cors` option's `maxAgeSeconds`).",
    required: true,
    schema: { type: 'integer', minimum: 0, maximum: 86_400 },
  },
  PreflightVary: { description: 'The answer depends on the `Origin`.', required: true, schema: { type: 'string', const: 'Origin' } },
} as const

const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` })

/** The headers of an answer to a listed origin, each only when CORS is on. */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': header('AccessControlAllowOrigin'),
  'Access-Control-Expose-Headers': header('AccessControlExposeHeaders'),
  Vary: header('Vary'),
}

/** The JSON Schema of a zod schema of a parameter, without zod's dialect line. */
function parameterSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, JSON_SCHEMA_OPTIONS) as Record<string, unknown>
  return rest
}

/** The parameters of GET and HEAD, in `components.parameters`. */
const PARAMETERS = {
  partner: {
    name: 'partner',
    in: 'query',
    required: true,
    description:
      'The partner\'s name, whitelisted by the service operator. Compared trimmed and case-insensitively. Missing, blank or repeated: 400 "Missing partner" (after authentication). Whether it is whitelisted is the operator\'s list: a name that is not (or is over 128 characters, or holds a control character) is the 403.',
    schema: parameterSchema(partnerParameterSchema),
  },
  accountIdHeader: {
    name: 'X-Service-Account-Id',
    in: 'header',
    required: true,
    description:
      'The account ID. Missing, empty, repeated, over 256 characters or with any character outside visible ASCII: 400 "Invalid Credentials", as for wrong credentials. The same credential as the `accountId` security scheme, as a parameter so that generated clients type it.',
    schema: parameterSchema(credentialHeaderSchema),
  },
  passcodeHeader: {
    name: 'X-Service-Passcode',
    in: 'header',
    required: true,
    description:
      "An account passcode, or the caller's user passcode when the account accepts them; the same rules as `X-Service-Account-Id`. The same credential as the `passcode` security scheme, as a parameter so that generated clients type it.",
    schema: parameterSchema(credentialHeaderSchema),
  },
} as const

const parameter = (name: keyof typeof PARAMETERS) => ({ $ref: `#/components/parameters/${name}` })

/** The answers of GET (with their bodies) or of HEAD (the same, without). */
function connectResponses(withBody: boolean): Record<string, unknown> {
  return Object.fromEntries(
    (Object.entries(connectResponseSchemas) as unknown as [string, z.ZodType][]).map(([status, schema]) => {
      const code = Number(status) as Status
      return [
        status,
        {
          description: withBody ? DESCRIPTIONS[code] : `As for GET, without a body: ${DESCRIPTIONS[code]}`,
          headers: {
            'Cache-Control': header('CacheControl'),
            ...(code === 200 ? { Sunset: header('Sunset') } : {}),
            ...(code === 429 ? { 'Retry-After': header('RetryAfter') } : {}),
            ...CORS_HEADERS,
          },
          ...(withBody ? { content: { 'application/json': { schema: reference(schema), examples: EXAMPLES[code] } } } : {}),
        },
      ]
    }),
  )
}

const CREDENTIALS = [{ accountId: [], passcode: [] }]

/** The OpenAPI 3.1 document of `/v1/connect`. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'passcode-auth: GET /v1/connect',
      version: '1',
      summary: "Lets a partner check a customer's account ID and passcode.",
      description:
        'Credentials are checked first, then the partner: a caller without valid credentials never learns whether a partner is whitelisted. ' +
        'Missing, empty, repeated, over-long (> 256 bytes) or non-ASCII credential headers are answered like wrong ones (400), not with 401. ' +
        'HEAD is answered as GET, without a body. Every other method, known or not (POST, PUT, DELETE, PATCH, TRACE, PROPFIND, QUERY…), gets the 405 of `components.responses.MethodNotAllowed` with `Allow: GET, HEAD`, without the credentials being read; OpenAPI 3.1 names only some methods, and an operation per method would give generated clients calls that always fail, so only OPTIONS lists it. ' +
        'Generated by `npm run openapi` from the zod schemas of its requests and answers (src/protocol/connect-request-schemas.ts, src/protocol/connect-response-schemas.ts).',
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
          parameters: [parameter('partner'), parameter('accountIdHeader'), parameter('passcodeHeader')],
          security: CREDENTIALS,
          responses: connectResponses(true),
        },
        head: {
          operationId: 'connectHead',
          summary: 'As GET, without a body: the status and headers only',
          parameters: [parameter('partner'), parameter('accountIdHeader'), parameter('passcodeHeader')],
          security: CREDENTIALS,
          responses: connectResponses(false),
        },
        options: {
          operationId: 'connectPreflight',
          summary: "A browser's CORS preflight: 204 from a listed origin when CORS is on, else the 405",
          description:
            'With CORS on (SPEC §5.30), an OPTIONS from a listed `Origin` carrying `Access-Control-Request-Method: GET` gets 204 with the CORS headers; every other OPTIONS gets the 405. No credentials are read.',
          parameters: [
            { name: 'Origin', in: 'header', required: false, description: "The page's origin, as browsers send it.", schema: { type: 'string' } },
            {
              name: 'Access-Control-Request-Method',
              in: 'header',
              required: false,
              description: 'The method the page means to use; only `GET` gets the 204.',
              schema: { type: 'string' },
            },
          ],
          security: [],
          responses: {
            204: {
              description: 'A preflight from a listed origin, for GET.',
              headers: {
                'Access-Control-Allow-Origin': header('PreflightAllowOrigin'),
                'Access-Control-Allow-Methods': header('PreflightAllowMethods'),
                'Access-Control-Allow-Headers': header('PreflightAllowHeaders'),
                'Access-Control-Max-Age': header('PreflightMaxAge'),
                Vary: header('PreflightVary'),
              },
            },
            405: { $ref: '#/components/responses/MethodNotAllowed' },
          },
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
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: {
        MethodNotAllowed: {
          description:
            'Any method but GET, HEAD and an OPTIONS preflight that CORS allows, known or not: the same answer, without the credentials being read.',
          headers: { Allow: header('Allow'), 'Cache-Control': header('CacheControl'), ...CORS_HEADERS },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/MethodNotAllowed' },
              examples: { methodNotAllowed: { value: FAILURES.method_not_allowed.body } },
            },
          },
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
