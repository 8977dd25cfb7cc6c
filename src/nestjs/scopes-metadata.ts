import type { Reflector } from '@nestjs/core'
import type { ExecutionContext } from '@nestjs/common'

/** The metadata key under which `@RequireScopes` keeps a handler's or a controller's scopes. */
export const REQUIRED_SCOPES = 'passcode-auth:required-scopes'

const NONE: readonly string[] = Object.freeze([])

/**
 * The scopes the route of `context` needs: its controller's, then its handler's own,
 * each once, in that order (the scopes rule names the first one missing, in the route's order).
 */
export function requiredScopes(reflector: Reflector, context: ExecutionContext): readonly string[] {
  const ofClass = reflector.get<readonly string[] | undefined>(REQUIRED_SCOPES, context.getClass())
  const ofHandler = reflector.get<readonly string[] | undefined>(REQUIRED_SCOPES, context.getHandler())
  if (ofClass === undefined) return ofHandler ?? NONE
  if (ofHandler === undefined) return ofClass
  return [...new Set([...ofClass, ...ofHandler])]
}
