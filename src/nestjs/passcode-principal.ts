import { createParamDecorator, type ExecutionContext } from '@nestjs/common'
import type { Principal } from '../core/entities'
import { ConfigurationError } from '../core/errors'
import { principalOf } from './principal'

/**
 * A handler parameter that receives who called (SPEC §5.17): the `Principal` that
 * `PasscodeAuthGuard` let the request through with. On a route without the guard it
 * throws a `ConfigurationError` (a 500), never hands over `undefined`.
 *
 * @example
 * ```ts
 * @Get('events.json')
 * @UseGuards(PasscodeAuthGuard)
 * list(@PasscodePrincipal() principal: Principal) {
 *   return { events: [], calledBy: principal }
 * }
 * ```
 */
export const PasscodePrincipal: () => ParameterDecorator = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = principalOf(context.switchToHttp().getRequest<object>())
  if (principal === undefined) throw new ConfigurationError('@PasscodePrincipal() is on a route that PasscodeAuthGuard does not guard')
  return principal
})
