import type { RequestHandler } from 'express'
import type { Principal } from '../core/entities'
import { assertPasscodeAuth, checkAdapterOptions, checkOnRefusal, checkScopes } from '../http/adapter-options'
import { PasscodeRefusedError } from '../http/refusal-error'
import { writeNodeResponse } from '../http/node/write-response'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { expressReader } from './reader'

declare global {
  // Express's own extension point for request properties (a namespace by design).
  namespace Express {
    interface Request {
      /** Who called (SPEC §5.17); set by `requirePasscode` before the next handler runs. */
      passcodeAuth?: Principal
    }
  }
}

/**
 * Options of the Express {@link requirePasscode}.
 *
 * @example
 * ```ts
 * const options: RequirePasscodeOptions = { onRefusal: 'next' }
 * ```
 */
export interface RequirePasscodeOptions {
  /**
   * `'respond'` answers a refusal at once with the exact SPEC body and headers.
   * `'next'` passes a `PasscodeRefusedError` to `next(err)` instead, for hosts whose
   * own error handler shapes every error response.
   * @default 'respond'
   */
  onRefusal?: 'respond' | 'next'
  /**
   * The scopes the route needs (SPEC §5.48), each declared by the service's `scopes`
   * option (checked now: an undeclared one throws `InvalidOptionsError`). A valid
   * passcode that lacks one is refused with 403 `Missing scope: <name>`, the first
   * missing in this order.
   * @default none (any valid passcode)
   */
  scopes?: readonly string[]
}

/**
 * Express (4 and 5) middleware that lets a request through only with valid
 * `X-Service-Account-Id` and `X-Service-Passcode` headers, and puts who called on
 * `req.passcodeAuth`. Refusals are written directly unless `onRefusal: 'next'`.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - see {@link RequirePasscodeOptions}; checked at once
 * @example
 * ```ts
 * app.get('/1/events.json', requirePasscode(auth), (req, res) => {
 *   res.json({ calledBy: req.passcodeAuth })
 * })
 * ```
 */
export function requirePasscode(auth: PasscodeAuth, options?: RequirePasscodeOptions): RequestHandler {
  assertPasscodeAuth(auth, 'requirePasscode')
  options = checkAdapterOptions(options, 'requirePasscode', { onRefusal: checkOnRefusal, scopes: checkScopes })
  const passRefusals = options?.onRefusal === 'next'
  const required = auth.requiredScopes(options?.scopes)

  return function requirePasscodeMiddleware(req, res, next) {
    const answer = auth.verifyRequest(req, expressReader, required)
    if (!(answer instanceof Promise)) {
      req.passcodeAuth = answer
      next()
      return
    }
    answer.then((outcome) => {
      if (outcome.ok) {
        req.passcodeAuth = outcome.principal
        // `Sunset` while the passcode is in its last days, on the host's own answer.
        if (outcome.headers !== undefined) res.set(outcome.headers)
        next()
      } else if (passRefusals) next(new PasscodeRefusedError(outcome))
      else writeNodeResponse(res, outcome)
    }, next)
  }
}
