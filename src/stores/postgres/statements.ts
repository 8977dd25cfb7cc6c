import { accountPasscodeStatements } from './account-passcode-statements'
import { accountStatements } from './account-statements'
import { leakStatements } from './leak-statements'
import { lookupStatements } from './lookup-statements'
import { notificationStatements } from './notification-statements'
import { usageStatements } from './usage-statements'
import { userPasscodeStatements } from './user-passcode-statements'

/**
 * Every statement of the store, for one schema: the same SQL for `pg` and PGlite.
 * Casts on parameters give both drivers the types without a round trip to ask.
 */
export function statements(s: string) {
  return {
    ...lookupStatements(s),
    ...accountStatements(s),
    ...accountPasscodeStatements(s),
    ...userPasscodeStatements(s),
    ...usageStatements(s),
    ...notificationStatements(s),
    ...leakStatements(s),
  }
}

/** The statements of one schema. */
export type Statements = ReturnType<typeof statements>

/** The unique index that enforces name uniqueness; its violation means `duplicate_name`. */
export const NAME_INDEX = 'account_passcodes_name_key'
