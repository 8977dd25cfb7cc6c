// The service's errors, one module per family: the base class and its codes
// (passcode-auth-error.ts), bad inputs and options (input-errors.ts), operations the
// state or the role refuses (operation-errors.ts), and failures of the store, the audit
// chain or the mailer (infrastructure-errors.ts).
export { PasscodeAuthError } from './passcode-auth-error'
export type { PasscodeAuthErrorCode } from './passcode-auth-error'
export { InvalidInputError, PolicyViolationError, InvalidOptionsError, ConfigurationError } from './input-errors'
export {
  ForbiddenError,
  NotFoundError,
  CapReachedError,
  DuplicateNameError,
  ReactivationRefusedError,
  RotationRefusedError,
  AlreadyGrantedError,
} from './operation-errors'
export { StorageError, AuditChainBrokenError, StorageTimeoutError, MailerError, NoRecipientsError } from './infrastructure-errors'
