import type { Principal } from '../core/entities'

/**
 * What the HTTP layer may know of a service beyond its public API, so that a request
 * costs no more than it needs: whether `authenticate` and `connect` use the caller's
 * address, and the synchronous cache-hit path. Not part of the public API.
 */
export interface AdapterHints {
  /**
   * Whether the function reads `clientAddress` (the `rateLimit` option limits failures
   * per address). Adapters read the request's address only then.
   */
  readonly usesClientAddress: boolean
  /**
   * The principal when the verification cache holds these credentials (and the
   * limiter, if any, lets the caller's address through), else `undefined`; emits the
   * same `auth.succeeded` event as `authenticate`. Given the address when
   * `usesClientAddress`. Absent when the cache is off.
   */
  readonly cached?: ((accountId: string, passcode: string, clientAddress?: string) => Principal | undefined) | undefined
}

// A registered symbol, so that an adapter loaded from the other build (ESM or CJS) of
// the package still finds the hints of a service made by this one.
const HINTS: unique symbol = Symbol.for('passcode-auth.adapter-hints.v1')

type Hinted = { readonly [HINTS]?: AdapterHints }

/**
 * Attaches `hints` to one of the service's own functions (`authenticate`, `connect`),
 * not enumerable. The hints travel with the function: a host or a test that replaces
 * `auth.authenticate` replaces them too, so its own function is always the one called.
 *
 * @example
 * ```ts
 * const authenticate = withAdapterHints(createAuthenticate(context), { usesClientAddress: false, cached })
 * ```
 */
export function withAdapterHints<F extends (...args: never[]) => unknown>(fn: F, hints: AdapterHints): F {
  Object.defineProperty(fn, HINTS, { value: Object.freeze({ ...hints }) })
  return fn
}

/**
 * The hints of a service function, or `undefined` for any other function (a stand-in,
 * a wrapper, a spy), whose callers then take the full path and pass the address.
 *
 * @example
 * ```ts
 * const hints = adapterHintsOf(auth.authenticate)
 * ```
 */
export function adapterHintsOf(fn: unknown): AdapterHints | undefined {
  return typeof fn === 'function' ? (fn as Hinted)[HINTS] : undefined
}
