import type { PasscodeView } from '../../core/entities'
import { MAX_ACCOUNT_PASSCODES, passcodeNameKey } from '../../core/rules'
import type { CommandContext, CommandSpec } from '../command'
import { CliError } from '../exit-codes'
import { formatInstant, statusLabel, table } from '../output'

/** `--expiry`: whole days or "forever"; the range (1 to 3650) is the service's rule to check. */
function parseExpiry(text: string): number | 'forever' {
  if (text.trim().toLowerCase() === 'forever') return 'forever'
  if (/^\s*-?\d+\s*$/.test(text)) return Number(text)
  throw new CliError('ERR_USAGE', `Invalid --expiry: must be a whole number of days (1 to 3650) or "forever"`, { setting: '--expiry' })
}

function describe(passcode: PasscodeView): string {
  const expires = passcode.expiresAt === null ? 'never expires' : `expires ${formatInstant(passcode.expiresAt)}`
  return `"${passcode.name}" in account ${passcode.accountId} (id ${passcode.id}, ${passcode.hint}): ${statusLabel(passcode.status)}, ${expires}`
}

/** Finds a passcode by its id, or by its name as the service compares names. */
async function findPasscode(context: CommandContext, accountId: string, reference: string): Promise<PasscodeView> {
  const { auth } = await context.runtime()
  const passcodes = await auth.passcodes.list(context.actor, accountId)
  const key = passcodeNameKey(reference)
  const found = passcodes.find((passcode) => passcode.id === reference) ?? passcodes.find((passcode) => passcodeNameKey(passcode.name) === key)
  if (found === undefined) throw new CliError('ERR_NOT_FOUND', `No passcode with id or name "${reference}" in account ${accountId}`)
  return found
}

const account = { type: 'string', value: '<accountId>', description: 'the account', required: true } as const
const expiryHelp = 'whole days from now (1 to 3650) or "forever"'

const create: CommandSpec = {
  path: ['passcodes', 'create'],
  summary: 'create an account passcode and print its value, once',
  options: {
    account,
    name: { type: 'string', value: '<name>', description: 'unique in the account, 1 to 64 characters', required: true },
    expiry: { type: 'string', value: '<days|forever>', description: expiryHelp, required: true },
  },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes create --account acc_1 --name "Acme" --expiry 90'],
  check: (flags) => void parseExpiry(String(flags.expiry)),
  async run(context) {
    const { flags, actor, output } = context
    const expiry = parseExpiry(String(flags.expiry))
    const { auth } = await context.runtime()
    const { passcode, value } = await auth.passcodes.create(actor, String(flags.account), { name: String(flags.name), expiry })
    output.result(
      { passcode, value },
      [
        `Created passcode ${describe(passcode)}.`,
        '',
        `  ${value}`,
        '',
        'This is the only time the value is shown: the service keeps only its hash.',
      ].join('\n'),
    )
  },
}

const list: CommandSpec = {
  path: ['passcodes', 'list'],
  summary: 'list the account passcodes of an account with their status',
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes list --account acc_1', 'passcode-auth passcodes list --account acc_1 --json'],
  async run(context) {
    const accountId = String(context.flags.account)
    const { auth } = await context.runtime()
    const passcodes = await auth.passcodes.list(context.actor, accountId)
    const rows = passcodes.map((p) => [p.id, p.name, p.hint, statusLabel(p.status), formatInstant(p.expiresAt)])
    context.output.result(
      { accountId, passcodes },
      passcodes.length === 0
        ? `No passcodes in account ${accountId}.`
        : `${table(['ID', 'NAME', 'HINT', 'STATUS', 'EXPIRES'], rows)}\n\n${passcodes.length} of ${MAX_ACCOUNT_PASSCODES} passcodes.`,
    )
  },
}

const edit: CommandSpec = {
  path: ['passcodes', 'edit'],
  summary: 'rename a passcode or give it a new expiry, counted from now',
  positionals: [{ name: 'passcode', description: 'the passcode\'s id or current name' }],
  options: {
    account,
    name: { type: 'string', value: '<name>', description: 'the new name' },
    expiry: { type: 'string', value: '<days|forever>', description: `the new expiry: ${expiryHelp}` },
  },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes edit Acme --account acc_1 --expiry 365', 'passcode-auth passcodes edit Acme --account acc_1 --name "Acme EU"'],
  check(flags) {
    if (flags.name === undefined && flags.expiry === undefined) {
      throw new CliError('ERR_USAGE', '"passcodes edit" needs --name, --expiry or both')
    }
    if (flags.expiry !== undefined) parseExpiry(String(flags.expiry))
  },
  async run(context) {
    const { flags, actor, output } = context
    const expiry = flags.expiry === undefined ? undefined : parseExpiry(String(flags.expiry))
    const accountId = String(flags.account)
    const target = await findPasscode(context, accountId, context.positionals[0]!)
    const { auth } = await context.runtime()
    const updated = await auth.passcodes.update(actor, accountId, target.id, {
      ...(flags.name !== undefined && { name: String(flags.name) }),
      ...(expiry !== undefined && { expiry }),
    })
    output.result({ passcode: updated }, `Updated passcode ${describe(updated)}.`)
  },
}

const remove: CommandSpec = {
  path: ['passcodes', 'delete'],
  summary: 'delete a passcode; calls with it fail at once',
  positionals: [{ name: 'passcode', description: 'the passcode\'s id or name' }],
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes delete Acme --account acc_1'],
  async run(context) {
    const accountId = String(context.flags.account)
    const target = await findPasscode(context, accountId, context.positionals[0]!)
    const { auth } = await context.runtime()
    await auth.passcodes.delete(context.actor, accountId, target.id)
    context.output.result(
      { deleted: { id: target.id, accountId, name: target.name } },
      `Deleted passcode "${target.name}" (id ${target.id}) from account ${accountId}; calls with it fail from now on.`,
    )
  },
}

/** `passcodes create|list|edit|delete`. */
export const passcodesCommands: readonly CommandSpec[] = [create, list, edit, remove]
