import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common'
import { InvalidOptionsError } from '../core/errors'
import { PasscodeAuthGuard } from './guard'
import { REQUIRED_SCOPES } from './scopes-metadata'

// How a scope is named (the scopes rule of restricted passcodes).
const SCOPE_NAME = /^[a-z][a-z0-9_.:-]{0,63}$/

/**
 * The scopes a route needs (restricted passcodes), on a handler or on a controller (then on
 * each of its handlers; a handler's own come after its controller's). It also applies
 * `PasscodeAuthGuard`, so a route that names scopes is never left unguarded; the
 * guard runs once per request however often it is applied. Names are checked when the
 * class is decorated.
 *
 * @param scopes - scope names, each `^[a-z][a-z0-9_.:-]{0,63}$`
 * @example
 * ```ts
 * @Controller('1')
 * class EventsController {
 *   @Get('events.json')
 *   @RequireScopes('events:read')
 *   list(@PasscodePrincipal() principal: Principal) {
 *     return { events: [], calledBy: principal }
 *   }
 * }
 * ```
 */
export function RequireScopes(...scopes: readonly string[]): ClassDecorator & MethodDecorator {
  for (const [index, scope] of scopes.entries()) {
    if (typeof scope !== 'string' || !SCOPE_NAME.test(scope)) {
      throw new InvalidOptionsError(`scopes[${index}]`, 'must be a scope name such as events:read (^[a-z][a-z0-9_.:-]{0,63}$)')
    }
  }
  return applyDecorators(SetMetadata(REQUIRED_SCOPES, Object.freeze([...scopes])), UseGuards(PasscodeAuthGuard))
}
