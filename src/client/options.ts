import { z } from 'zod'
import { InvalidClientOptionsError } from './errors'

/** A `fetch`-compatible function: the global one, undici's, a test double. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

/**
 * When and how the client tries again after a 503, a 504 or a network error. Never after
 * a 429 (`RateLimitedError`): the service's limiter window usually outlasts the deadline.
 */
export interface RetryOptions {
  /** Retries after the first attempt. @default 2 */
  retries?: number
  /** Ceiling of the first wait; it doubles on each retry (full jitter). @default 200 */
  baseDelayMs?: number
  /** Largest wait drawn between attempts; a `Retry-After` header may ask for more. @default 2000 */
  maxDelayMs?: number
}

/**
 * The options of `createConnectClient` other than where the service is: whose
 * credentials to send and how to behave. {@link ConnectClientOptions} adds `baseUrl`
 * or `region` + `regions`.
 *
 * @example
 * ```ts
 * const common: ConnectClientCommonOptions = { accountId: 'acc_123', passcode: process.env.PASSCODE!, timeoutMs: 3_000 }
 * const client = createConnectClient({ ...common, baseUrl: 'https://api.example.com' })
 * ```
 */
export interface ConnectClientCommonOptions {
  /** The account ID, sent as `X-Service-Account-Id`. */
  accountId: string
  /** The passcode, sent as `X-Service-Passcode`. Kept out of every error and log form of the client. */
  passcode: string
  /** Partner name used when `connect()` is called without one. */
  partner?: string
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: FetchLike
  /** Deadline in milliseconds for a whole call: every attempt and every wait. @default 10000 */
  timeoutMs?: number
  /** Retry policy for 503, 504 and network errors (never 429), or `false` for a single attempt. @default { retries: 2, baseDelayMs: 200, maxDelayMs: 2000 } */
  retry?: false | RetryOptions
  /** `User-Agent` header; browsers may ignore it. @default the runtime's own */
  userAgent?: string
  /** Refuse, before any request, a passcode that is not in the SPEC §5.5 format. Off so legacy passcodes work. @default false */
  validatePasscodeFormat?: boolean
  /** Cancels every call of this client when it fires (a shutdown signal, say). */
  signal?: AbortSignal
}

/**
 * Options of `createConnectClient`: where the service is (a `baseUrl`, or a `region`
 * looked up in the host's `regions` map), whose credentials to send and how to behave.
 */
export type ConnectClientOptions = ConnectClientCommonOptions &
  (
    | { /** The service's base URL; `/v1/connect` is resolved against it. */ baseUrl: string; region?: undefined; regions?: Record<string, string> }
    | {
        /** The account's region, a key of `regions`. */
        region: string
        /** Region name → base URL. The list of hosts is configuration, never code (SPEC §4). */
        regions: Record<string, string>
        baseUrl?: undefined
      }
  )

const VISIBLE_ASCII = /^[\x21-\x7e]{1,256}$/
const headerText = z.string().regex(VISIBLE_ASCII, 'must be 1 to 256 visible ASCII characters (an HTTP header value)')
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http: or https: URL' })
const positive = (max: number) => z.number().int().min(1).max(max)

const optionsSchema = z
  .object({
    baseUrl: httpUrl.optional(),
    region: z.string().min(1, 'must not be empty').optional(),
    regions: z.record(z.string(), httpUrl).optional(),
    accountId: headerText,
    passcode: headerText,
    partner: z.string().optional(),
    fetch: z.custom<FetchLike>((value) => typeof value === 'function', { message: 'must be a fetch function' }).optional(),
    timeoutMs: positive(600_000).default(10_000),
    retry: z
      .union([
        z.literal(false),
        z
          .object({
            retries: z.number().int().min(0).max(10).default(2),
            baseDelayMs: positive(60_000).default(200),
            maxDelayMs: positive(600_000).default(2_000),
          })
          .strict(),
      ])
      .default({ retries: 2, baseDelayMs: 200, maxDelayMs: 2_000 }),
    userAgent: z.string().regex(/^[\x20-\x7e]{1,256}$/, 'must be 1 to 256 printable ASCII characters').optional(),
    validatePasscodeFormat: z.boolean().default(false),
    signal: z
      .custom<AbortSignal>((value) => typeof AbortSignal !== 'undefined' && value instanceof AbortSignal, {
        message: 'must be an AbortSignal',
      })
      .optional(),
  })
  .strict()

type ParsedOptions = z.output<typeof optionsSchema>

/** Options after validation and defaults, with the base URL chosen. */
export interface ResolvedClientOptions extends Omit<ParsedOptions, 'baseUrl' | 'region' | 'regions' | 'retry'> {
  readonly baseUrl: string
  readonly retry: { readonly retries: number; readonly baseDelayMs: number; readonly maxDelayMs: number }
}

/**
 * Validates the options once, at creation. The error names the first bad option and
 * never echoes a value (the passcode is one of them).
 */
export function resolveClientOptions(options: unknown): ResolvedClientOptions {
  const result = optionsSchema.safeParse(options)
  if (!result.success) {
    const issue = result.error.issues[0]!
    const path = issue.path.length > 0 ? issue.path.join('.') : 'options'
    const message =
      issue.code === 'unrecognized_keys' ? `unknown option ${issue.keys.map((key) => `\`${key}\``).join(', ')}` : issue.message
    throw new InvalidClientOptionsError(path, message)
  }
  const { baseUrl, region, regions, retry, ...rest } = result.data
  return {
    ...rest,
    baseUrl: chooseBaseUrl(baseUrl, region, regions),
    retry: retry === false ? { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } : retry,
  }
}

function chooseBaseUrl(baseUrl: string | undefined, region: string | undefined, regions: Record<string, string> | undefined): string {
  if (baseUrl !== undefined && region !== undefined) {
    throw new InvalidClientOptionsError('baseUrl', 'give either `baseUrl` or `region`, not both')
  }
  if (baseUrl !== undefined) return baseUrl
  if (region === undefined) throw new InvalidClientOptionsError('baseUrl', 'required, or give `region` and `regions`')
  if (regions === undefined) throw new InvalidClientOptionsError('regions', 'required with `region`: a map of region name to base URL')
  const found = Object.hasOwn(regions, region) ? regions[region] : undefined
  if (found === undefined) {
    const known = Object.keys(regions)
    throw new InvalidClientOptionsError(
      'region',
      `unknown region ${JSON.stringify(region)} (known: ${known.length > 0 ? known.join(', ') : 'none'})`,
    )
  }
  return found
}

/** The URL of GET /v1/connect under a base URL that may carry a path prefix. */
export function connectUrl(baseUrl: string, partner: string | undefined): string {
  const base = new URL(baseUrl)
  if (!base.pathname.endsWith('/')) base.pathname += '/'
  base.search = ''
  base.hash = ''
  const url = new URL('v1/connect', base)
  if (partner !== undefined) url.searchParams.set('partner', partner)
  return url.href
}
