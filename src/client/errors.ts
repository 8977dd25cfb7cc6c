// The errors of the connect client, one module per family: the base class and the
// errors raised before a request (connect-error.ts), the service's refusals
// (refusal-errors.ts), and the failures to get an answer (transport-errors.ts).
export { ConnectError, InvalidClientOptionsError, MalformedPasscodeError } from './connect-error'
export type { ConnectErrorCode } from './connect-error'
export {
  InvalidCredentialsError,
  MissingPartnerError,
  PasscodeExpiredError,
  PartnerNotWhitelistedError,
  AddressNotAllowedError,
  MissingScopeError,
  RateLimitedError,
  ServerError,
} from './refusal-errors'
export { TimeoutError, NetworkError, UnexpectedResponseError, AbortedError } from './transport-errors'
export type { UnexpectedResponseReason } from './transport-errors'
