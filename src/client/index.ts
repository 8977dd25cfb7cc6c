/**
 * The typed client partners use to call `GET /v1/connect`: `createConnectClient()`
 * and its errors. No dependency and no Node-only API: it runs in Node, browsers, Deno,
 * Bun and edge runtimes.
 *
 * @module passcode-auth/client
 */
export { createConnectClient } from './create-connect-client'
export type { ConnectCallOptions, ConnectClient } from './create-connect-client'
export type { ConnectClientCommonOptions, ConnectClientOptions, FetchLike, RetryOptions } from './options'
export type { CheckFailure, CheckResult, ConnectFailureByCode } from './check-result'
export {
  AbortedError,
  AddressNotAllowedError,
  ConnectError,
  InvalidClientOptionsError,
  InvalidCredentialsError,
  MalformedPasscodeError,
  MissingPartnerError,
  MissingScopeError,
  NetworkError,
  PartnerNotWhitelistedError,
  PasscodeExpiredError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
} from './errors'
export type { ConnectErrorCode, UnexpectedResponseReason } from './errors'
export type { ConnectResponseStatus, ConnectSuccess } from './response-bodies'
