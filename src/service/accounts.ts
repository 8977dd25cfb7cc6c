import type { AcceptedPasscodes, Actor } from '../core/entities'
import { ForbiddenError } from '../core/errors'
import { canManageUserPasscodes } from '../core/rules'
import type { ManagementContext } from './context'
import { storeCall } from './deadline'
import { parseInput } from './input'
import { auditEntry } from './audit-entry'

/** Account settings: `auth.accounts`. */
export interface AccountsApi {
  /** Which passcodes the account accepts: `account` (default), `user` or `both` (admins only). Setting the value it already has changes nothing: no record, no event. */
  setAcceptedPasscodes(actor: Actor, accountId: string, accepted: AcceptedPasscodes): Promise<void>
  /** The account's current setting. */
  getAcceptedPasscodes(accountId: string): Promise<AcceptedPasscodes>
}

/** Builds `auth.accounts`: it stores a changed setting with its audit record, drops cached credentials of the account and emits the event. */
export function createAccountsApi(context: Pick<ManagementContext, 'store' | 'now' | 'invalidate' | 'emit' | 'auditSigner'>): AccountsApi {
  return {
    async setAcceptedPasscodes(actor, accountId, accepted) {
      const who = parseInput('actor', 'actor', actor)
      if (!canManageUserPasscodes(who)) throw new ForbiddenError('Only admins change which passcodes an account accepts')
      const account = parseInput('accountId', 'accountId', accountId)
      const value = parseInput('accepted', 'accepted', accepted)
      const before = await storeCall(() => context.store.getAcceptedPasscodes(account))
      // Already so: nothing changes, so no write, record or event (as for disable and enable).
      if (before === value) return
      const audit = auditEntry(
        context.auditSigner,
        who,
        account,
        context.now(),
        'account.accepted_passcodes_changed',
        { type: 'account' },
        {
          acceptedPasscodes: { before, after: value },
        },
      )
      await storeCall(() => context.store.setAcceptedPasscodes(account, value, audit))
      context.invalidate({ type: 'account', accountId: account })
      context.emit?.({ type: 'account.accepted_passcodes_changed', accountId: account, actorUserId: who.userId, acceptedPasscodes: value })
    },
    async getAcceptedPasscodes(accountId) {
      const account = parseInput('accountId', 'accountId', accountId)
      return storeCall(() => context.store.getAcceptedPasscodes(account))
    },
  }
}
