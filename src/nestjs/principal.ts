import type { Principal } from '../core/entities'

// Who called, per request object, as the guard let it through. The guard's own record
// (not a property anything else could set): `@PasscodePrincipal()` reads it, and a
// second run of the guard on the same request (global and on the route) finds it.
const principals = new WeakMap<object, Principal>()

/** The principal the guard let `request` through with, if it did. */
export function principalOf(request: object): Principal | undefined {
  return principals.get(request)
}

/** Records who called, and puts it on `request.passcodeAuth` as the Express and Fastify adapters do. */
export function rememberPrincipal(request: object, principal: Principal): void {
  principals.set(request, principal)
  ;(request as { passcodeAuth?: Principal }).passcodeAuth = principal
}
