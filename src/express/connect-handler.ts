import type { RequestHandler } from 'express'
import { assertPasscodeAuth } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import { writeNodeResponse } from '../http/node/write-response'
import { expressReader } from './reader'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * The Express (4 and 5) handler of `GET /v1/connect?partner=<name>` (SPEC §4):
 * credentials first, then the partner; it always answers, with the exact SPEC body.
 * `partner` is read from the raw URL, not from `req.query`, so Express's query
 * parser settings make no difference. Mounted with `app.all`, it also answers every
 * other method with 405 (`Allow: GET, HEAD`) as the Fastify and Koa adapters do;
 * with `app.get`, other methods get Express's own 404.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @example
 * ```ts
 * app.all('/v1/connect', connectHandler(auth))
 * ```
 */
export function connectHandler(auth: PasscodeAuth): RequestHandler {
  assertPasscodeAuth(auth, 'connectHandler')
  const connectRequest = createConnectRequest(auth, expressReader)
  return function connectRequestHandler(req, res, next) {
    connectRequest(req).then((result) => writeNodeResponse(res, result), next)
  }
}
