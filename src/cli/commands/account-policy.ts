import { InvalidInputError, type AccountPolicyView } from '../../index'
import type { CommandSpec } from '../command'

const account = { type: 'string', value: '<accountId>', description: 'the account', required: true } as const

/** The policy in words, as the commands print it. */
function describePolicy(accountId: string, policy: AccountPolicyView): string {
  const rules = [
    ...(policy.maxLifetimeDays === null ? [] : [`passcodes live at most ${policy.maxLifetimeDays} day${policy.maxLifetimeDays === 1 ? '' : 's'}`]),
    ...(policy.requireExpiry ? ['every account passcode needs an expiry'] : []),
    ...(policy.requireDescription ? ['every account passcode needs a description'] : []),
  ]
  const source = policy.source === 'account' ? 'its own' : "the host's default"
  return `Account ${accountId} follows ${source} passcode policy: ${rules.length === 0 ? 'no rule' : rules.join('; ')}.`
}

/** `--max-lifetime-days` as a number, left to the service's checks (1 to 3650). */
function lifetimeDays(text: string | undefined): number | null {
  if (text === undefined) return null
  if (!/^\s*-?\d+\s*$/.test(text)) throw new InvalidInputError('maxLifetimeDays', 'must be a whole number of days (1 to 3650)')
  return Number(text)
}

const showPolicy: CommandSpec = {
  path: ['accounts', 'policy'],
  summary: "show an account's passcode policy: its own or the host's default",
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth accounts policy --account acc_1'],
  async run(context) {
    const accountId = String(context.flags.account)
    const { auth } = await context.runtime()
    const policy = await auth.accounts.getPolicy(accountId)
    context.output.result({ accountId, policy }, describePolicy(accountId, policy))
  },
}

const setPolicy: CommandSpec = {
  path: ['accounts', 'set-policy'],
  summary: "set an account's passcode policy, whole: rules not given are off (admins)",
  options: {
    account,
    'max-lifetime-days': { type: 'string', value: '<days>', description: 'the longest a passcode may live, 1 to 3650 days' },
    'require-expiry': { type: 'boolean', description: 'no account passcode without an expiry ("forever" refused)' },
    'require-description': { type: 'boolean', description: 'no account passcode without a description' },
    default: { type: 'boolean', description: "drop the account's own policy: the host's default applies again" },
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth accounts set-policy --account acc_1 --max-lifetime-days 90 --require-expiry',
    'passcode-auth accounts set-policy --account acc_1 --default',
  ],
  async run(context) {
    const { flags } = context
    const accountId = String(flags.account)
    const rules = flags['max-lifetime-days'] !== undefined || flags['require-expiry'] === true || flags['require-description'] === true
    if (flags.default === true && rules) throw new InvalidInputError('default', "goes back to the host's default: give it without any rule")
    const input =
      flags.default === true
        ? null
        : {
            maxLifetimeDays: lifetimeDays(flags['max-lifetime-days'] as string | undefined),
            requireExpiry: flags['require-expiry'] === true,
            requireDescription: flags['require-description'] === true,
          }
    const { auth } = await context.runtime()
    const policy = await auth.accounts.setPolicy(context.actor, accountId, input)
    context.output.result({ accountId, policy }, describePolicy(accountId, policy))
  },
}

/** `accounts policy` and `accounts set-policy` (SPEC §5.52). */
export const accountPolicyCommands: readonly CommandSpec[] = [showPolicy, setPolicy]
