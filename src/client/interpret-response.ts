import { bodyExcerpt } from './body-excerpt'
import {
  type ConnectError,
  InvalidCredentialsError,
  MissingPartnerError,
  PartnerNotWhitelistedError,
  PasscodeExpiredError,
  RateLimitedError,
  UnexpectedResponseError,
  type UnexpectedResponseReason,
} from './errors'
import type { BoundedBody } from './read-body'
import {
  type ConnectSuccess,
  connectResponseSchemas,
  connectSuccessBodySchema,
  invalidCredentialsBodySchema,
  missingPartnerBodySchema,
  partnerNotWhitelistedBodySchema,
  passcodeExpiredBodySchema,
  rateLimitedBodySchema,
} from './schemas'

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

  if (!Object.hasOwn(connectResponseSchemas, response.status)) return unexpected('status')
  if (response.body.truncated) return unexpected('too_large')
  if (response.contentType === null || !JSON_CONTENT_TYPE.test(response.contentType)) return unexpected('content_type')
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body.bytes))
  } catch {
    return unexpected('invalid_json')
  }
  switch (response.status) {
    case 200: {
      const success = connectSuccessBodySchema.safeParse(json)
      return success.success ? success.data : unexpected('schema')
    }
    case 400:
      if (invalidCredentialsBodySchema.safeParse(json).success) return new InvalidCredentialsError()
      return missingPartnerBodySchema.safeParse(json).success ? new MissingPartnerError() : unexpected('schema')
    case 401:
      return passcodeExpiredBodySchema.safeParse(json).success ? new PasscodeExpiredError() : unexpected('schema')
    case 403:
      return partnerNotWhitelistedBodySchema.safeParse(json).success
        ? new PartnerNotWhitelistedError(facts.partner ?? '')
        : unexpected('schema')
    case 429:
      return rateLimitedBodySchema.safeParse(json).success ? new RateLimitedError(response.retryAfterMs) : unexpected('schema')
    default:
      // 503 and 504 are answered before the body is read.
      return unexpected('status')
  }
}
