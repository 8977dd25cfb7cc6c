import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Principal } from '../../core/entities'
import type { FailureReason } from '../../protocol/outcomes'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { assertPasscodeAuth, checkAdapterOptions, checkScopes } from '../adapter-options'
import { createConnectRequest } from '../connect-request'
import type { CorsOptions } from '../cors'
import { nodeRequestReader } from './node-request'
import { writeNodeResponse } from './write-response'

/**
 * Options of {@link nodeRequirePasscode}.
 *
 * @example
 * ```ts
 * const options: NodeRequirePasscodeOptions = { onRefusal: (reason) => console.warn('refused', reason) }
 * ```
 */
export interface NodeRequirePasscodeOptions {
  /**
   * The caller's address, for the service's `rateLimit` option (its per-address limit
   * counts only requests that give one). Behind a proxy, return what the proxy you
   * trust says. @default the socket's address (`request.socket.remoteAddress`)
   */
  readonly clientAddress?: ((request: IncomingMessage) => string | undefined) | undefined
  /**
   * Called with the reason of each refusal (`unknown_passcode`, `expired`, …) just
   * before the refusal is written, for the host's request log. Several reasons send the
   * same bytes (SPEC §5.4), so this is the only place that tells them apart.
   * @default none
   */
  readonly onRefusal?: ((reason: FailureReason, request: IncomingMessage, response: ServerResponse) => void) | undefined
  /**
   * The scopes the route needs (SPEC §5.48), each declared by the service's `scopes`
   * option (checked now: an undeclared one throws `InvalidOptionsError`). A valid
   * passcode that lacks one is refused with 403 `Missing scope: <name>`, the first
   * missing in this order.
   * @default none (any valid passcode)
   */
  readonly scopes?: readonly string[] | undefined
}

/**
 * Options of {@link nodeConnectHandler}.
 *
 * @example
 * ```ts
 * const options: NodeConnectHandlerOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export interface NodeConnectHandlerOptions extends NodeRequirePasscodeOptions {
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default off */
  readonly cors?: CorsOptions | undefined
}

/**
 * A {@link nodeRequirePasscode} check: who called, synchronously when the verification
 * cache knows the credentials, else a promise of it; `undefined` when the request was
 * refused and the refusal is written already.
 */
export type NodePasscodeGuard = (request: IncomingMessage, response: ServerResponse) => Principal | Promise<Principal | undefined>

/** A Node `http` request handler of passcode-auth: it always answers. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>

const socketAddress = (request: IncomingMessage): string | undefined => request.socket.remoteAddress

// Returns the options to use: their own properties only (see checkAdapterOptions).
const checkOptions = <T extends NodeRequirePasscodeOptions | NodeConnectHandlerOptions | undefined>(options: T, factory: string, cors: boolean): T =>
  checkAdapterOptions(options, factory, {
    clientAddress: (value) => (value === undefined || typeof value === 'function' ? undefined : 'must be a function (request) => string | undefined'),
    onRefusal: (value) => (value === undefined || typeof value === 'function' ? undefined : 'must be a function (reason, request, response) => void'),
    ...(cors ? { cors: () => undefined } : { scopes: checkScopes }),
  })

/**
 * Checks the `X-Service-Account-Id` and `X-Service-Passcode` headers of a request to
 * Node's own `http` server, with no framework. The guard returns who called, or
 * `undefined` once it has written the refusal with the exact SPEC body and headers. On
 * a warm verification cache it returns the principal itself, synchronously, as the
 * Express, Fastify and Koa adapters do; otherwise a promise, and while the passcode is
 * in its last days it sets `Sunset` on `response` for the host's own answer.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `clientAddress` and `onRefusal` (see {@link NodeRequirePasscodeOptions}); checked at once
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * import { nodeRequirePasscode } from 'passcode-auth'
 *
 * const guard = nodeRequirePasscode(auth)
 * createServer(async (request, response) => {
 *   const principal = await guard(request, response)
 *   if (principal === undefined) return // refused: the answer is written
 *   response.setHeader('content-type', 'application/json')
 *   response.end(JSON.stringify({ calledBy: principal }))
 * }).listen(3000)
 * ```
 */
export function nodeRequirePasscode(auth: PasscodeAuth, options?: NodeRequirePasscodeOptions): NodePasscodeGuard {
  assertPasscodeAuth(auth, 'nodeRequirePasscode')
  options = checkOptions(options, 'nodeRequirePasscode', false)
  const onRefusal = options?.onRefusal
  const required = auth.requiredScopes(options?.scopes)
  const reader = nodeRequestReader((request: IncomingMessage) => request, options?.clientAddress ?? socketAddress)
  return function checkPasscode(request, response) {
    const answer = auth.verifyRequest(request, reader, required)
    if (!(answer instanceof Promise)) return answer
    return answer.then((outcome) => {
      if (outcome.ok) {
        if (outcome.headers !== undefined) for (const name in outcome.headers) response.setHeader(name, outcome.headers[name]!)
        return outcome.principal
      }
      onRefusal?.(outcome.reason, request, response)
      writeNodeResponse(response, outcome)
      return undefined
    })
  }
}

/**
 * The handler of `GET /v1/connect?partner=<name>` (SPEC §4) for Node's own `http`
 * server, with no framework: credentials first, then the partner, with the exact SPEC
 * body; `HEAD` is answered as `GET`, any other method with 405 and `Allow: GET, HEAD`,
 * as in every adapter. `partner` is read from the raw request target. With `cors`,
 * pages of the listed origins may call it from a browser (route `OPTIONS` to it too).
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `cors`, `clientAddress` and `onRefusal` (see {@link NodeConnectHandlerOptions}); checked at once
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * import { nodeConnectHandler } from 'passcode-auth'
 *
 * const connect = nodeConnectHandler(auth)
 * createServer((request, response) => {
 *   if (request.url?.split('?')[0] === '/v1/connect') return void connect(request, response)
 *   response.statusCode = 404
 *   response.end()
 * }).listen(3000)
 * ```
 */
export function nodeConnectHandler(auth: PasscodeAuth, options?: NodeConnectHandlerOptions): NodeHandler {
  assertPasscodeAuth(auth, 'nodeConnectHandler')
  options = checkOptions(options, 'nodeConnectHandler', true)
  const onRefusal = options?.onRefusal
  const reader = nodeRequestReader((request: IncomingMessage) => request, options?.clientAddress ?? socketAddress)
  const connectRequest = createConnectRequest(auth, reader, options?.cors === undefined ? {} : { cors: options.cors })
  return async function connect(request, response) {
    const answer = await connectRequest(request)
    // A preflight has no reason; a refusal carries it for the host's log.
    if ('reason' in answer && answer.reason !== undefined) onRefusal?.(answer.reason, request, response)
    writeNodeResponse(response, answer)
  }
}
