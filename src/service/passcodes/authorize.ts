import type { Actor } from '../../core/entities'
import { ForbiddenError } from '../../core/errors'
import { canManageAccountPasscodes } from '../../core/rules'
import { parseInput } from '../input'

/** The checked actor, if it may create, edit, rotate or delete account passcodes (SPEC §2, §5.31). */
export function authorizeManager(actor: unknown): Actor {
  const checked = parseInput('actor', 'actor', actor)
  if (!canManageAccountPasscodes(checked)) {
    throw new ForbiddenError('Only admins or users with write access to User Settings manage passcodes')
  }
  return checked
}
