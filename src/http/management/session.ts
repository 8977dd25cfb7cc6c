import { isVisibleAscii } from '../../core/rules'
import type { DashboardSession } from './types'

/**
 * Whether what the host's resolver returned is a usable session: an account ID and
 * an actor with a user ID and a role. Anything else is the host's bug, answered as a
 * configuration error rather than trusted.
 */
export function isValidSession(session: DashboardSession): boolean {
  if (typeof session !== 'object' || typeof session.accountId !== 'string' || !isVisibleAscii(session.accountId)) return false
  const actor: unknown = session.actor
  if (typeof actor !== 'object' || actor === null) return false
  const { userId, role } = actor as Record<string, unknown>
  return typeof userId === 'string' && isVisibleAscii(userId) && (role === 'admin' || role === 'member')
}
