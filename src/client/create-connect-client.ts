import { isWellFormedPasscode } from '../core/passcode-format'
import { openCallScope } from './call-scope'
import type { CheckResult } from './check-result'
import { ConnectError, MalformedPasscodeError, ServerError } from './errors'
import { connectUrl, type ConnectClientOptions, type FetchLike, resolveClientOptions } from './options'
import { isRetryable, retryDelayMs } from './retry'
import type { ConnectSuccess } from './response-bodies'
import { sendAttempt } from './send-attempt'

/** Per-call options of `connect` and `check`. */
export interface ConnectCallOptions {
  /** Cancels this call at once when it fires. */
  signal?: AbortSignal
}

/** A client for GET /v1/connect, bound to one account's credentials. */
export interface ConnectClient {
  /** The base URL in use (chosen from `regions` when created with a `region`). */
  readonly baseUrl: string
  /** The account ID the client sends. */
  readonly accountId: string
  /**
   * Checks the credentials for a partner. Resolves `{ status: 'success', message }` or
   * rejects with a {@link ConnectError} subclass.
   *
   * @param partner - the partner name. @default the `partner` option; none is sent when neither is given
   */
  connect(partner?: string, options?: ConnectCallOptions): Promise<ConnectSuccess>
  /** Like {@link ConnectClient.connect}, but resolves a result instead of rejecting. */
  check(partner?: string, options?: ConnectCallOptions): Promise<CheckResult>
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

/**
 * Creates a typed client for the service's GET /v1/connect. Runs wherever `fetch` does
 * (Node 20+, Deno, Bun, browsers, edge runtimes). Options are validated at once; a bad
 * one throws an `InvalidClientOptionsError` naming it.
 *
 * @param options - see {@link ConnectClientOptions}
 * @example
 * ```ts
 * import { createConnectClient, PartnerNotWhitelistedError } from 'passcode-auth/client'
 *
 * const client = createConnectClient({
 *   region: 'eu',
 *   regions: { eu: 'https://eu.api.example.com', us: 'https://us.api.example.com' },
 *   accountId: 'acc_123',
 *   passcode: process.env.SERVICE_PASSCODE!,
 * })
 * try {
 *   const { message } = await client.connect('acme') // 'Authorised Successfully.'
 * } catch (error) {
 *   if (error instanceof PartnerNotWhitelistedError) console.warn(`${error.partner} is not whitelisted`)
 *   else throw error
 * }
 * ```
 */
export function createConnectClient(options: ConnectClientOptions): ConnectClient {
  const resolved = resolveClientOptions(options)
  // Only this closure holds the passcode: the client object has no property, JSON or inspect form that shows it.
  const passcode = resolved.passcode
  const fetchImpl: FetchLike = resolved.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const { baseUrl, accountId, retry, timeoutMs } = resolved

  async function connect(partner?: string, callOptions?: ConnectCallOptions): Promise<ConnectSuccess> {
    if (resolved.validatePasscodeFormat && !isWellFormedPasscode(passcode)) throw new MalformedPasscodeError()
    const chosenPartner = partner ?? resolved.partner
    const request = {
      fetch: fetchImpl,
      url: connectUrl(baseUrl, chosenPartner),
      accountId,
      passcode,
      partner: chosenPartner,
      userAgent: resolved.userAgent,
    }
    const scope = openCallScope(timeoutMs, [resolved.signal, callOptions?.signal])
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await sendAttempt(request, scope)
        } catch (error) {
          if (!isRetryable(error) || attempt >= retry.retries) throw error
          const delay = retryDelayMs(retry, attempt, error instanceof ServerError ? error.retryAfterMs : undefined)
          // A wait that outlasts the deadline would only end in a TimeoutError; the real failure says more.
          if (delay >= scope.remainingMs()) throw error
          await scope.sleep(delay)
        }
      }
    } finally {
      scope.dispose()
    }
  }

  async function check(partner?: string, callOptions?: ConnectCallOptions): Promise<CheckResult> {
    try {
      const { status, message, expiresAt } = await connect(partner, callOptions)
      return expiresAt === undefined ? { ok: true, status, message } : { ok: true, status, message, expiresAt }
    } catch (error) {
      if (error instanceof ConnectError) return { ok: false, code: error.code, error } as CheckResult
      throw error
    }
  }

  const describe = (): { baseUrl: string; accountId: string; partner?: string } =>
    resolved.partner === undefined ? { baseUrl, accountId } : { baseUrl, accountId, partner: resolved.partner }

  return Object.freeze({
    baseUrl,
    accountId,
    connect,
    check,
    toJSON: describe,
    toString: () => `ConnectClient(${baseUrl}, account ${accountId})`,
    [INSPECT]: () => ({ ...describe(), passcode: '[redacted]' }),
  })
}
