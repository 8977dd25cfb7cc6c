import { bodyExcerpt } from './body-excerpt'
import {
  AddressNotAllowedError,
  type ConnectError,
  MissingScopeError,
  InvalidCredentialsError,
  MissingPartnerError,
  PartnerNotWhitelistedError,
  PasscodeExpiredError,
  RateLimitedError,
  UnexpectedResponseError,
  type UnexpectedResponseReason,
} from './errors'
import type { BoundedBody } from './read-body'
import { asConnectSuccess, type ConnectSuccess, failureText, isConnectResponseStatus, PARTNER_NOT_WHITELISTED_PREFIX } from './response-bodies'

/** A response with its body read (up to the limit). */
export interface ReadResponse {
  readonly status: number
  readonly contentType: string | null
  readonly body: BoundedBody
  /** What the `Retry-After` header asked for, in milliseconds; kept by a 429. */
  readonly retryAfterMs: number | undefined
}

/** What the request sent that the interpretation needs: the partner for a 403, the secret to blank out. */
export interface RequestFacts {
  readonly partner: string | undefined
  readonly passcode: string
}

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * Turns an answer other than 503/504 into the success body or the error for its case.
 * Anything /v1/connect does not answer with (status, content type, JSON, shape, size)
 * becomes an {@link UnexpectedResponseError}.
 */
export function interpretResponse(response: ReadResponse, facts: RequestFacts): ConnectSuccess | ConnectError {
  const unexpected = (reason: UnexpectedResponseReason): UnexpectedResponseError =>
    new UnexpectedResponseError({
      status: response.status,
      contentType: response.contentType,
      reason,
      bodyExcerpt: bodyExcerpt(response.body.bytes, facts.passcode),
    })

  if (!isConnectResponseStatus(response.status)) return unexpected('status')
  if (response.body.truncated) return unexpected('too_large')
  if (response.contentType === null || !JSON_CONTENT_TYPE.test(response.contentType)) return unexpected('content_type')
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body.bytes))
  } catch {
    return unexpected('invalid_json')
  }
  switch (response.status) {
    case 200:
      return asConnectSuccess(json) ?? unexpected('schema')
    case 400: {
      const text = failureText(json, 400)
      if (text === 'Invalid Credentials') return new InvalidCredentialsError()
      return text === 'Missing partner' ? new MissingPartnerError() : unexpected('schema')
    }
    case 401:
      return failureText(json, 401) === 'Passcode expired' ? new PasscodeExpiredError() : unexpected('schema')
    case 403: {
      const text = failureText(json, 403)
      if (text?.startsWith(PARTNER_NOT_WHITELISTED_PREFIX) === true) return new PartnerNotWhitelistedError(facts.partner ?? '')
      // SPEC §5.49, §5.48: a valid passcode restricted by address or scope.
      if (text === 'Address not allowed') return new AddressNotAllowedError()
      const scope = text === undefined ? undefined : /^Missing scope: ([a-z][a-z0-9_.:-]{0,63})$/.exec(text)?.[1]
      return scope === undefined ? unexpected('schema') : new MissingScopeError(scope)
    }
    case 429:
      return failureText(json, 429) === 'Too Many Requests' ? new RateLimitedError(response.retryAfterMs) : unexpected('schema')
    default:
      // 503 and 504 are answered before the body is read.
      return unexpected('status')
  }
}
