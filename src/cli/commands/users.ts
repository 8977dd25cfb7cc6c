import type { UserPasscodeValidity, UserPasscodeView } from '../../index'
import type { CommandSpec } from '../command'
import { CliError } from '../exit-codes'
import { LIMIT_OPTIONS, limitFlags } from '../limit-flags'
import { statusLabel } from '../../dashboard/index'
import { formatInstant } from '../output'
import { missingKeyError } from '../encryption-keys'
import { commandName } from '../command-name'
import type { CommandContext } from '../command'
import type { Runtime } from '../runtime'
import { parseAddresses, parseScopes, restrictionLines, restrictionOptions } from '../restriction-flags'

/** The store, for a command that encrypts or decrypts user passcodes: a missing key is a setting to fix (exit 2). */
async function keyedRuntime(context: CommandContext): Promise<Runtime> {
  const runtime = await context.runtime()
  if (!runtime.hasEncryptionKeys) throw missingKeyError()
  return runtime
}

/** `--validity`: whole days (the service checks 1 to 365) or "infinite". */
function parseValidity(text: string): UserPasscodeValidity {
  if (text.trim().toLowerCase() === 'infinite') return { type: 'infinite' }
  if (/^\s*-?\d+\s*$/.test(text)) return { type: 'finite', days: Number(text) }
  throw new CliError('ERR_USAGE', 'Invalid --validity: must be a whole number of days (1 to 365) or "infinite"', { setting: '--validity' })
}

function describe(view: UserPasscodeView): string {
  const validity = view.validity.type === 'infinite' ? 'infinite validity' : `${view.validity.days} days`
  return `user ${view.userId} in account ${view.accountId} (${view.hint}, ${validity}): ${statusLabel(view.status)}, expires ${formatInstant(view.expiresAt)}`
}

const account = { type: 'string', value: '<accountId>', description: 'the account', required: true } as const
const user = [{ name: 'userId', description: 'the user who holds the user passcode' }] as const

const grant: CommandSpec = {
  path: ['users', 'grant'],
  summary: 'grant a user passcode (admins); the user reveals its value',
  positionals: user,
  options: {
    account,
    validity: { type: 'string', value: '<days|infinite>', description: '1 to 365 days, or "infinite" (10 years)', required: true },
    ...restrictionOptions,
    ...LIMIT_OPTIONS,
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth users grant u_42 --account acc_1 --validity 90',
    'passcode-auth users grant u_42 --account acc_1 --validity 90 --scope events:read --allow-address 198.51.100.0/24',
    'passcode-auth users grant u_42 --account acc_1 --validity 90 --credits 500',
  ],
  check(flags) {
    parseValidity(String(flags.validity))
    if (flags.scope !== undefined && flags['all-scopes'] === true)
      throw new CliError('ERR_USAGE', '"users grant" takes --scope or --all-scopes, not both')
    if (flags.scope !== undefined) parseScopes(flags.scope)
    limitFlags(flags)
  },
  async run(context) {
    const { flags, actor, output } = context
    const validity = parseValidity(String(flags.validity))
    const { auth } = await keyedRuntime(context)
    const view = await auth.userPasscodes.grant(actor, String(flags.account), context.positionals[0]!, {
      validity,
      ...(flags.scope !== undefined && { scopes: parseScopes(flags.scope) }),
      ...(flags['allow-address'] !== undefined && { allowedAddresses: parseAddresses(flags['allow-address']) }),
      ...limitFlags(flags),
    })
    output.result(
      { userPasscode: view },
      `Granted a user passcode to ${describe(view)}.${restrictionLines(view)}\nThe user sees its value with: ${commandName()} users reveal --account ${view.accountId} --as ${view.userId}`,
    )
  },
}

const reset: CommandSpec = {
  path: ['users', 'reset'],
  summary: 'give a user passcode a fresh value (admins); the old one stops working',
  positionals: user,
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth users reset u_42 --account acc_1'],
  async run(context) {
    const { auth } = await keyedRuntime(context)
    const view = await auth.userPasscodes.reset(context.actor, String(context.flags.account), context.positionals[0]!)
    context.output.result({ userPasscode: view }, `Reset the user passcode of ${describe(view)}; the old value no longer works.`)
  },
}

const revoke: CommandSpec = {
  path: ['users', 'revoke'],
  summary: 'revoke a user passcode (admins); it stops working at once',
  positionals: user,
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth users revoke u_42 --account acc_1'],
  async run(context) {
    const { auth } = await context.runtime()
    const view = await auth.userPasscodes.revoke(context.actor, String(context.flags.account), context.positionals[0]!)
    context.output.result({ userPasscode: view }, `Revoked the user passcode of ${describe(view)}.`)
  },
}

const reveal: CommandSpec = {
  path: ['users', 'reveal'],
  summary: 'show your own user passcode (as --as <userId>)',
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth users reveal --account acc_1 --as u_42'],
  async run(context) {
    const { auth } = await keyedRuntime(context)
    const { passcode, value } = await auth.userPasscodes.reveal(context.actor, String(context.flags.account))
    context.output.result({ userPasscode: passcode, value }, `Your user passcode, ${describe(passcode)}:\n\n  ${value}\n`)
  },
}

/** `users grant|reset|revoke|reveal`. */
export const usersCommands: readonly CommandSpec[] = [grant, reset, revoke, reveal]
