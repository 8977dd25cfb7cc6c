import { ACCEPTED_PASSCODES_LABELS } from '../../dashboard/index'
import type { AcceptedPasscodes } from '../../index'
import type { CommandSpec } from '../command'

const setAccepted: CommandSpec = {
  path: ['accounts', 'set-accepted'],
  summary: 'choose which passcodes an account accepts: account, user or both (admins)',
  positionals: [{ name: 'accepted', description: '"account" (the default), "user" or "both"' }],
  options: { account: { type: 'string', value: '<accountId>', description: 'the account', required: true } },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth accounts set-accepted both --account acc_1'],
  async run(context) {
    const accountId = String(context.flags.account)
    const accepted = context.positionals[0] as AcceptedPasscodes
    const { auth } = await context.runtime()
    await auth.accounts.setAcceptedPasscodes(context.actor, accountId, accepted)
    context.output.result({ accountId, acceptedPasscodes: accepted }, `Account ${accountId} now accepts ${ACCEPTED_PASSCODES_LABELS[accepted]}.`)
  },
}

/** `accounts set-accepted`. */
export const accountsCommands: readonly CommandSpec[] = [setAccepted]
