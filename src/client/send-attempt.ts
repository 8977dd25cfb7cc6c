import type { CallScope } from './call-scope'
import { type ConnectError, NetworkError, ServerError } from './errors'
import { interpretResponse } from './interpret-response'
import type { FetchLike } from './options'
import { discardBody, MAX_BODY_BYTES, readBoundedBody } from './read-body'
import { parseRetryAfter } from './retry'
import type { ConnectSuccess } from './response-bodies'

/** Everything one attempt sends. Built per call; the passcode lives here only for the call. */
export interface AttemptRequest {
  readonly fetch: FetchLike
  readonly url: string
  readonly accountId: string
  readonly passcode: string
  readonly partner: string | undefined
  readonly userAgent: string | undefined
}

/**
 * Sends GET /v1/connect once and resolves the success body, or rejects with the
 * ConnectError for the answer. Redirects are not followed: a 3xx is an unexpected
 * answer, so the passcode header is never replayed to another host.
 */
export async function sendAttempt(request: AttemptRequest, scope: CallScope): Promise<ConnectSuccess> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-service-account-id': request.accountId,
    'x-service-passcode': request.passcode,
  }
  if (request.userAgent !== undefined) headers['user-agent'] = request.userAgent

  const response = await below(scope, () => request.fetch(request.url, { method: 'GET', headers, redirect: 'manual', signal: scope.signal }))
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now())
  if (response.status === 503 || response.status === 504) {
    discardBody(response.body)
    throw new ServerError(response.status, retryAfterMs)
  }
  const body = await below(scope, () => readBoundedBody(response.body, MAX_BODY_BYTES, scope.guard))
  const outcome = interpretResponse(
    { status: response.status, contentType: response.headers.get('content-type'), body, retryAfterMs },
    { partner: request.partner, passcode: request.passcode },
  )
  if (outcome instanceof Error) throw outcome
  // `Sunset` (RFC 8594): the service announces the passcode's end in its last days.
  const sunset = response.headers.get('sunset')
  const expiresAt = sunset === null ? Number.NaN : Date.parse(sunset)
  return Number.isNaN(expiresAt) ? outcome : { ...outcome, expiresAt: new Date(expiresAt) }
}

/**
 * Runs a step below HTTP: once the scope fired, its TimeoutError or AbortedError wins;
 * any other failure (refused, reset, DNS, TLS, a throwing fetch) is a NetworkError.
 */
async function below<T>(scope: CallScope, step: () => Promise<T>): Promise<T> {
  try {
    return await scope.guard(Promise.resolve().then(step))
  } catch (error) {
    if (scope.signal.aborted) throw scope.signal.reason as ConnectError
    throw new NetworkError({ cause: error })
  }
}
