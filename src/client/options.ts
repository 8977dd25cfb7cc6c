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
    | {
        /** The service's base URL; `/v1/connect` is resolved against it. */
        baseUrl: string
        /** Not with `baseUrl`. */
        region?: undefined
        /** Unused with `baseUrl` (its URLs are still checked), so one configuration object can hold both. */
        regions?: Record<string, string>
      }
    | {
        /** The account's region, a key of `regions`. */
        region: string
        /** Region name → base URL. The list of hosts is configuration, never code (SPEC §4). */
        regions: Record<string, string>
        /** Not with `region`. */
        baseUrl?: undefined
      }
  )

/** Options after validation and defaults, with the base URL chosen. */
export interface ResolvedClientOptions {
  readonly baseUrl: string
  readonly accountId: string
  readonly passcode: string
  readonly partner: string | undefined
  readonly fetch: FetchLike | undefined
  readonly timeoutMs: number
  readonly retry: { readonly retries: number; readonly baseDelayMs: number; readonly maxDelayMs: number }
  readonly userAgent: string | undefined
  readonly validatePasscodeFormat: boolean
  readonly signal: AbortSignal | undefined
}

const OPTION_NAMES = [
  'baseUrl',
  'region',
  'regions',
  'accountId',
  'passcode',
  'partner',
  'fetch',
  'timeoutMs',
  'retry',
  'userAgent',
  'validatePasscodeFormat',
  'signal',
] as const
const RETRY_NAMES = ['retries', 'baseDelayMs', 'maxDelayMs'] as const
const HEADER_TEXT = /^[\x21-\x7e]{1,256}$/
const USER_AGENT_TEXT = /^[\x20-\x7e]{1,256}$/

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Throws the error for one option. Messages describe what is expected and never echo the value. */
function refuse(option: string, message: string): never {
  throw new InvalidClientOptionsError(option, message)
}

function refuseUnknownKeys(object: Record<string, unknown>, known: readonly string[], option: string): void {
  const unknown = Object.keys(object).filter((key) => !known.includes(key))
  if (unknown.length > 0) refuse(option, `unknown option ${unknown.map((key) => `\`${key}\``).join(', ')}`)
}

function httpUrl(value: unknown, option: string): string {
  let url: URL | undefined
  try {
    url = typeof value === 'string' ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') refuse(option, 'must be an absolute http: or https: URL')
  return value as string
}

function optionalText(value: unknown, pattern: RegExp | undefined, option: string, message: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || (pattern !== undefined && !pattern.test(value))) refuse(option, message)
  return value
}

function wholeNumber(value: unknown, fallback: number, min: number, max: number, option: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    refuse(option, `must be a whole number from ${min} to ${max}`)
  }
  return value
}

function retryPolicy(value: unknown): ResolvedClientOptions['retry'] {
  if (value === false) return { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }
  if (value === undefined) return { retries: 2, baseDelayMs: 200, maxDelayMs: 2_000 }
  if (!isObject(value)) refuse('retry', 'must be `false` or an object with `retries`, `baseDelayMs` and `maxDelayMs`')
  refuseUnknownKeys(value, RETRY_NAMES, 'retry')
  return {
    retries: wholeNumber(value.retries, 2, 0, 10, 'retry.retries'),
    baseDelayMs: wholeNumber(value.baseDelayMs, 200, 1, 60_000, 'retry.baseDelayMs'),
    maxDelayMs: wholeNumber(value.maxDelayMs, 2_000, 1, 600_000, 'retry.maxDelayMs'),
  }
}

function regionMap(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined
  if (!isObject(value)) refuse('regions', 'must be an object mapping region names to base URLs')
  for (const [name, url] of Object.entries(value)) httpUrl(url, `regions.${name}`)
  return value as Record<string, string>
}

/**
 * Validates the options once, at creation. The error names the first bad option and
 * never echoes a value (the passcode is one of them).
 */
export function resolveClientOptions(options: unknown): ResolvedClientOptions {
  if (!isObject(options)) refuse('options', 'must be an object')
  const baseUrl = options.baseUrl === undefined ? undefined : httpUrl(options.baseUrl, 'baseUrl')
  const region = optionalText(options.region, /[\s\S]/, 'region', 'must be a non-empty string')
  const regions = regionMap(options.regions)
  const headerMessage = 'must be 1 to 256 visible ASCII characters (an HTTP header value)'
  const accountId = optionalText(options.accountId, HEADER_TEXT, 'accountId', headerMessage) ?? refuse('accountId', headerMessage)
  const passcode = optionalText(options.passcode, HEADER_TEXT, 'passcode', headerMessage) ?? refuse('passcode', headerMessage)
  const partner = optionalText(options.partner, undefined, 'partner', 'must be a string')
  if (options.fetch !== undefined && typeof options.fetch !== 'function') refuse('fetch', 'must be a fetch function')
  const timeoutMs = wholeNumber(options.timeoutMs, 10_000, 1, 600_000, 'timeoutMs')
  const retry = retryPolicy(options.retry)
  const userAgent = optionalText(options.userAgent, USER_AGENT_TEXT, 'userAgent', 'must be 1 to 256 printable ASCII characters')
  const validatePasscodeFormat = options.validatePasscodeFormat ?? false
  if (typeof validatePasscodeFormat !== 'boolean') refuse('validatePasscodeFormat', 'must be true or false')
  const signal = options.signal
  if (signal !== undefined && !(typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal)) {
    refuse('signal', 'must be an AbortSignal')
  }
  refuseUnknownKeys(options, OPTION_NAMES, 'options')
  return {
    baseUrl: chooseBaseUrl(baseUrl, region, regions),
    accountId,
    passcode,
    partner,
    fetch: options.fetch as FetchLike | undefined,
    timeoutMs,
    retry,
    userAgent,
    validatePasscodeFormat,
    signal,
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
    throw new InvalidClientOptionsError('region', `unknown region ${JSON.stringify(region)} (known: ${known.length > 0 ? known.join(', ') : 'none'})`)
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
