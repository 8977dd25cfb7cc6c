import type { RequestHandler } from 'express'
import { assertPasscodeAuth } from '../http/adapter-options'
import { connectNodeRequest } from '../http/connect-request'
import { writeNodeResponse } from '../http/write-result'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * The Express (4 and 5) handler of `GET /v1/connect?partner=<name>` (SPEC §4):
 * credentials first, then the partner; it always answers, with the exact SPEC body.
 * `partner` is read from the raw URL, not from `req.query`, so Express's query
 * parser settings make no difference.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @example
 * ```ts
 * app.get('/v1/connect', connectHandler(auth))
 * ```
 */
export function connectHandler(auth: PasscodeAuth): RequestHandler {
  assertPasscodeAuth(auth, 'connectHandler')
  return function connectRequestHandler(req, res, next) {
    connectNodeRequest(auth, req).then((result) => writeNodeResponse(res, result), next)
  }
}
