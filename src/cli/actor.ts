import { z } from 'zod'
import type { Actor } from '../index'
import type { Flags } from './config'
import { CliError } from './exit-codes'

/** The user management commands act as when `--as` is not given. */
export const DEFAULT_ACTOR_ID = 'operator'

const userId = z.string().regex(/^[\x21-\x7e]{1,256}$/, 'must be 1 to 256 visible ASCII characters')
const role = z.enum(['admin', 'member'], { error: 'must be "admin" or "member"' })

/**
 * Who a management command acts as. The CLI stands in for the service's dashboard and
 * is run by its operator, so it acts as an admin by default; `--as` names the user
 * (needed by `users reveal`, which shows only the caller's own passcode) and `--role
 * member [--user-settings]` checks what a member may do.
 */
export function actorFrom(flags: Flags): Actor {
  const given = { as: flags.as ?? DEFAULT_ACTOR_ID, role: flags.role ?? 'admin' }
  for (const [flag, schema] of [
    ['as', userId],
    ['role', role],
  ] as const) {
    const result = schema.safeParse(given[flag])
    if (!result.success) throw new CliError('ERR_USAGE', `Invalid --${flag}: ${result.error.issues[0]?.message}`, { setting: `--${flag}` })
  }
  return {
    userId: String(given.as),
    role: given.role as Actor['role'],
    ...(flags['user-settings'] === true && { canWriteUserSettings: true }),
  }
}
