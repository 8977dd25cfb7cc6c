import { z } from 'zod'
import type { FailureBody } from './outcomes'

/*
 * The bodies of GET /v1/connect (SPEC §4, §5.1, §5.3, §5.15, and the 429 of the optional
 * brute-force limiter) as zod schemas, for an OpenAPI generator (`z.toJSONSchema`) and
 * for hosts that validate answers with zod. Objects are not strict, so a server that
 * adds a field later does not break older clients. The connect client checks the same
 * shapes with small hand-written guards (src/client/response-bodies.ts) so that a
 * browser bundle does not carry zod; test/client/response-bodies.test.ts keeps the two
 * in agreement.
 */

/** A 200 body as clients read it: `{"status":"success","message":<text>}`. */
export interface ConnectSuccessBody {
  /** Always `'success'`. */
  readonly status: 'success'
  /** Human-readable confirmation, "Authorised Successfully.". */
  readonly message: string
}

/** The schema of each answer of GET /v1/connect, by HTTP status. */
export interface ConnectResponseSchemas {
  /** Valid credentials and a whitelisted partner. */
  readonly 200: z.ZodType<ConnectSuccessBody>
  /** Invalid credentials, or no partner named. */
  readonly 400: z.ZodType<FailureBody>
  /** The passcode has expired. */
  readonly 401: z.ZodType<FailureBody>
  /** The partner is not whitelisted, or the passcode may not be used from this address. */
  readonly 403: z.ZodType<FailureBody>
  /** The brute-force limiter refuses the caller. */
  readonly 429: z.ZodType<FailureBody>
  /** The service or its storage failed. */
  readonly 503: z.ZodType<FailureBody>
  /** Storage was slower than the deadline. */
  readonly 504: z.ZodType<FailureBody>
}

/**
 * The 200 body: `{"status":"success","message":"Authorised Successfully."}`.
 *
 * @example
 * ```ts
 * connectSuccessBodySchema.parse({ status: 'success', message: 'Authorised Successfully.' })
 * ```
 */
export const connectSuccessBodySchema: z.ZodType<ConnectSuccessBody> = z
  .object({
    status: z.literal('success'),
    message: z.string().describe('Human-readable confirmation, "Authorised Successfully."'),
  })
  .describe('Valid credentials and a whitelisted partner')

const failureBody = <Error extends z.ZodType<string>, Code extends z.ZodType<number>>(error: Error, code: Code) =>
  z.object({ status: z.literal('fail'), error, code })

/**
 * Any refusal: `{"status":"fail","error":<text>,"code":<HTTP status>}`.
 *
 * @example
 * ```ts
 * connectFailureBodySchema.parse({ status: 'fail', error: 'Invalid Credentials', code: 400 })
 * ```
 */
export const connectFailureBodySchema: z.ZodType<FailureBody> = failureBody(z.string(), z.number().int()).describe('A refused connect')

/**
 * The 400 body for wrong, unknown, deleted or revoked credentials, identical for all (SPEC §5.1).
 *
 * @example
 * ```ts
 * invalidCredentialsBodySchema.safeParse({ status: 'fail', error: 'Invalid Credentials', code: 400 }).success // true
 * ```
 */
export const invalidCredentialsBodySchema: z.ZodType<FailureBody> = failureBody(z.literal('Invalid Credentials'), z.literal(400)).describe(
  'The account ID or passcode is wrong',
)

/**
 * The 400 body when the credentials are valid but no partner was named (SPEC §5.3).
 *
 * @example
 * ```ts
 * missingPartnerBodySchema.safeParse({ status: 'fail', error: 'Missing partner', code: 400 }).success // true
 * ```
 */
export const missingPartnerBodySchema: z.ZodType<FailureBody> = failureBody(z.literal('Missing partner'), z.literal(400)).describe(
  'No partner was named',
)

/**
 * The 401 body for a passcode of that very account that has expired (SPEC §5.1).
 *
 * @example
 * ```ts
 * passcodeExpiredBodySchema.safeParse({ status: 'fail', error: 'Passcode expired', code: 401 }).success // true
 * ```
 */
export const passcodeExpiredBodySchema: z.ZodType<FailureBody> = failureBody(z.literal('Passcode expired'), z.literal(401)).describe(
  'The passcode has expired',
)

/**
 * The 403 body; the text echoes the partner name (cleaned, at most 128 characters).
 *
 * @example
 * ```ts
 * partnerNotWhitelistedBodySchema.safeParse({ status: 'fail', error: 'Partner not whitelisted Globex', code: 403 }).success // true
 * ```
 */
export const partnerNotWhitelistedBodySchema: z.ZodType<FailureBody> = failureBody(
  z.string().startsWith('Partner not whitelisted '),
  z.literal(403),
).describe('The partner is not whitelisted')

/**
 * The 403 body for a passcode with an address allowlist used from another address (SPEC §5.49).
 *
 * @example
 * ```ts
 * addressNotAllowedBodySchema.safeParse({ status: 'fail', error: 'Address not allowed', code: 403 }).success // true
 * ```
 */
export const addressNotAllowedBodySchema: z.ZodType<FailureBody> = failureBody(z.literal('Address not allowed'), z.literal(403)).describe(
  'The passcode may not be used from this address',
)

/**
 * The 429 bodies: the optional brute-force limiter's (the service's `rateLimit` option), and
 * the passcode's own rate limit and credits (SPEC §5.50); all sent with `Retry-After` when
 * a wait ends the refusal, the last two with the `RateLimit` and `RateLimit-Policy` headers.
 *
 * @example
 * ```ts
 * rateLimitedBodySchema.safeParse({ status: 'fail', error: 'Too Many Requests', code: 429 }).success // true
 * rateLimitedBodySchema.safeParse({ status: 'fail', error: 'Credits exhausted', code: 429 }).success // true
 * ```
 */
export const rateLimitedBodySchema: z.ZodType<FailureBody> = failureBody(
  z.enum(['Too Many Requests', 'Rate limit exceeded', 'Credits exhausted']),
  z.literal(429),
).describe(
  'Too many failed attempts from this address or for this account; or the passcode is over its own rate limit, or out of credits (SPEC §5.50)',
)

/**
 * The 503 or 504 body (SPEC §5.15).
 *
 * @example
 * ```ts
 * serverErrorBodySchema.safeParse({ status: 'fail', error: 'Server Error', code: 504 }).success // true
 * ```
 */
export const serverErrorBodySchema: z.ZodType<FailureBody> = failureBody(z.literal('Server Error'), z.literal([503, 504])).describe(
  'The service or its storage failed',
)

/**
 * The 405 body for any method but GET and HEAD (SPEC §5.20), sent with `Allow: GET, HEAD`.
 * Not among {@link connectResponseSchemas}: a client that sends GET never meets it.
 *
 * @example
 * ```ts
 * methodNotAllowedBodySchema.safeParse({ status: 'fail', error: 'Method Not Allowed', code: 405 }).success // true
 * ```
 */
export const methodNotAllowedBodySchema: z.ZodType<FailureBody> = failureBody(z.literal('Method Not Allowed'), z.literal(405)).describe(
  'The method is not GET or HEAD',
)

/**
 * Every answer of GET /v1/connect by HTTP status: what the connect client accepts and
 * what an OpenAPI document lists under `responses`.
 *
 * @example
 * ```ts
 * import { z } from 'zod'
 * import { connectResponseSchemas } from './connect-response-schemas'
 *
 * const responses = Object.fromEntries(
 *   Object.entries(connectResponseSchemas).map(([status, schema]) => [status, z.toJSONSchema(schema)]),
 * )
 * ```
 */
export const connectResponseSchemas: ConnectResponseSchemas = {
  200: connectSuccessBodySchema,
  400: z.union([invalidCredentialsBodySchema, missingPartnerBodySchema]),
  401: passcodeExpiredBodySchema,
  403: z.union([partnerNotWhitelistedBodySchema, addressNotAllowedBodySchema]),
  429: rateLimitedBodySchema,
  503: serverErrorBodySchema,
  504: serverErrorBodySchema,
} as const
