import { InvalidInputError, MAX_ACCOUNT_PASSCODES, passcodeNameKey, type PasscodeView } from '../../index'
import type { CommandContext, CommandSpec } from '../command'
import { CliError } from '../exit-codes'
import { hasLimitFlags, LIMIT_EDIT_OPTIONS, LIMIT_OPTIONS, limitFlags } from '../limit-flags'
import { LEAKED_ENABLE_WARNING, statusLabel } from '../../dashboard/index'
import { confirmOrRefuse } from '../confirm'
import { formatInstant, table } from '../output'
import { describe, descriptionCell, descriptionLines, lastUsedLabel, partnersLabel, scopesCell } from './passcode-labels'
import { checkRestrictions, labelOptions, parseTags, restrictionLines, restrictionOptions, restrictionsInput } from '../restriction-flags'

/** `--expiry`: whole days or "forever"; the range (1 to 3650) is the service's rule to check. */
function parseExpiry(text: string): number | 'forever' {
  if (text.trim().toLowerCase() === 'forever') return 'forever'
  if (/^\s*-?\d+\s*$/.test(text)) return Number(text)
  throw new CliError('ERR_USAGE', `Invalid --expiry: must be a whole number of days (1 to 3650) or "forever"`, { setting: '--expiry' })
}

/** `--partners acme,globex`: names separated by commas; whether each is whitelisted is the service's rule. */
function parsePartners(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
}

/**
 * The service names a bad filter inside its `options` object (`options.tags.1`); the
 * command's user gave it as a flag, so the error names it as the management API does:
 * `tags.1`.
 */
function withoutOptionsPrefix(error: unknown): unknown {
  if (!(error instanceof InvalidInputError) || !error.field.startsWith('options.')) return error
  const field = error.field.slice('options.'.length)
  return new InvalidInputError(field, error.message.slice(`Invalid ${error.field}: `.length))
}

/** `--overlap`: whole minutes; the range (0 to 10080) is the service's rule to check. */
function parseOverlap(text: string): number {
  if (/^\s*-?\d+\s*$/.test(text)) return Number(text)
  throw new CliError('ERR_USAGE', 'Invalid --overlap: must be a whole number of minutes (0 to 10080)', { setting: '--overlap' })
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

/** `--sort`: `created` (default) or `last-used`. */
function parseSort(value: unknown): 'createdAt' | 'lastUsedAt' {
  if (value === undefined || value === 'created') return 'createdAt'
  if (value === 'last-used') return 'lastUsedAt'
  throw new CliError('ERR_USAGE', 'Invalid --sort: must be "created" or "last-used"', { setting: '--sort' })
}

const account = { type: 'string', value: '<accountId>', description: 'the account', required: true } as const
const expiryHelp = 'whole days from now (1 to 3650) or "forever"'
const descriptionHelp = 'what it is for: up to 500 characters, newlines allowed'
const partnersHelp = 'whitelisted partners it works for on /v1/connect, separated by commas (default: any)'

const create: CommandSpec = {
  path: ['passcodes', 'create'],
  summary: 'create an account passcode and print its value, once',
  options: {
    account,
    name: { type: 'string', value: '<name>', description: 'unique in the account, 1 to 64 characters', required: true },
    expiry: { type: 'string', value: '<days|forever>', description: expiryHelp, required: true },
    partners: { type: 'string', value: '<names>', description: partnersHelp },
    description: { type: 'string', value: '<text>', description: descriptionHelp },
    ...restrictionOptions,
    ...labelOptions,
    ...LIMIT_OPTIONS,
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth passcodes create --account acc_1 --name "Acme" --expiry 90',
    'passcode-auth passcodes create --account acc_1 --name "Acme read" --expiry 90 --scope events:read --allow-address 203.0.113.0/24',
    'passcode-auth passcodes create --account acc_1 --name "Acme" --expiry 90 --metadata \'{"plan":"gold"}\' --tag billing --tag eu',
    'passcode-auth passcodes create --account acc_1 --name "Free plan" --expiry 365 --rate-limit 10/1 --credits 1000 --refill month:1000',
    'passcode-auth passcodes create --account acc_1 --name "Acme only" --expiry 90 --partners acme',
    'passcode-auth passcodes create --account acc_1 --name "Acme export" --expiry 90 --description "Nightly export to Acme"',
  ],
  check(flags) {
    parseExpiry(String(flags.expiry))
    checkRestrictions(flags, 'passcodes create')
    limitFlags(flags)
  },
  async run(context) {
    const { flags, actor, output } = context
    const expiry = parseExpiry(String(flags.expiry))
    const { auth } = await context.runtime()
    const { passcode, value } = await auth.passcodes.create(actor, String(flags.account), {
      name: String(flags.name),
      expiry,
      ...(flags.partners !== undefined && { partners: parsePartners(String(flags.partners)) }),
      ...(flags.description !== undefined && { description: String(flags.description) }),
      ...restrictionsInput(flags),
      ...limitFlags(flags),
    })
    output.result(
      { passcode, value },
      [
        `Created passcode ${describe(passcode)}.${descriptionLines(passcode)}${restrictionLines(passcode)}`,
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
  summary: 'list the account passcodes of an account with their status, partners and last use',
  options: {
    account,
    sort: { type: 'string', value: '<created|last-used>', description: 'order: oldest first (default), or least recently used first' },
    tag: { type: 'string', value: '<tag>', multiple: true, description: 'only passcodes with this tag; repeat: with every one of them' },
    search: { type: 'string', value: '<text>', description: 'only passcodes whose name, description or a tag holds this text (case-insensitive)' },
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth passcodes list --account acc_1',
    'passcode-auth passcodes list --account acc_1 --sort last-used',
    'passcode-auth passcodes list --account acc_1 --tag billing --search acme',
    'passcode-auth passcodes list --account acc_1 --json',
  ],
  check: (flags) => void parseSort(flags.sort),
  async run(context) {
    const accountId = String(context.flags.account)
    const { auth } = await context.runtime()
    const { tag, search } = context.flags
    const passcodes = await auth.passcodes
      .list(context.actor, accountId, {
        sortBy: parseSort(context.flags.sort),
        ...(tag !== undefined && { tags: parseTags(tag) }),
        ...(search !== undefined && { search: String(search) }),
      })
      .catch((error: unknown) => {
        throw withoutOptionsPrefix(error)
      })
    const filtered = tag !== undefined || search !== undefined
    // The DESCRIPTION, SCOPES and TAGS columns only when one of them has one.
    const described = passcodes.some((p) => p.description !== '')
    const scoped = passcodes.some((p) => p.scopes !== null || p.allowedAddresses.length > 0)
    const tagged = passcodes.some((p) => p.tags.length > 0)
    const rows = passcodes.map((p) => [
      p.id,
      p.name,
      p.hint,
      statusLabel(p.status),
      formatInstant(p.expiresAt),
      partnersLabel(p),
      lastUsedLabel(p),
      ...(scoped ? [scopesCell(p)] : []),
      ...(tagged ? [p.tags.join(', ')] : []),
      ...(described ? [descriptionCell(p)] : []),
    ])
    const headers = [
      'ID',
      'NAME',
      'HINT',
      'STATUS',
      'EXPIRES',
      'PARTNERS',
      'LAST USED',
      ...(scoped ? ['RESTRICTED TO'] : []),
      ...(tagged ? ['TAGS'] : []),
      ...(described ? ['DESCRIPTION'] : []),
    ]
    const unused = passcodes.filter((p) => p.unused).length
    context.output.result(
      { accountId, passcodes },
      passcodes.length === 0
        ? filtered
          ? `No passcodes in account ${accountId} match.`
          : `No passcodes in account ${accountId}.`
        : [table(headers, rows), '', `${passcodes.length} of ${MAX_ACCOUNT_PASSCODES} passcodes; ${unused} never used or unused for 90 days.`].join(
            '\n',
          ),
    )
  },
}

const edit: CommandSpec = {
  path: ['passcodes', 'edit'],
  summary: 'rename a passcode, give it a new expiry counted from now, change its partners or its description',
  positionals: [{ name: 'passcode', description: "the passcode's id or current name" }],
  options: {
    account,
    name: { type: 'string', value: '<name>', description: 'the new name' },
    expiry: { type: 'string', value: '<days|forever>', description: `the new expiry: ${expiryHelp}` },
    partners: { type: 'string', value: '<names>', description: 'bind it to these whitelisted partners, separated by commas' },
    unbind: { type: 'boolean', description: 'let it work for any whitelisted partner again' },
    description: { type: 'string', value: '<text>', description: `the new description (${descriptionHelp}); "" removes it` },
    ...restrictionOptions,
    'any-address': { type: 'boolean', description: 'accept calls from any address again (removes every range)' },
    metadata: { ...labelOptions.metadata, description: `${labelOptions.metadata.description}; null removes it` },
    tag: { ...labelOptions.tag, description: 'its tags from now on (they replace the old ones); repeat, up to 20' },
    'no-tags': { type: 'boolean', description: 'remove every tag' },
    ...LIMIT_EDIT_OPTIONS,
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth passcodes edit Acme --account acc_1 --expiry 365',
    'passcode-auth passcodes edit Acme --account acc_1 --name "Acme EU"',
    'passcode-auth passcodes edit Acme --account acc_1 --partners acme,acme-eu',
    'passcode-auth passcodes edit Acme --account acc_1 --description "Nightly export; owner: data team"',
    'passcode-auth passcodes edit Acme --account acc_1 --scope events:read,events:write --any-address',
    'passcode-auth passcodes edit Acme --account acc_1 --tag billing --metadata null',
    'passcode-auth passcodes edit Acme --account acc_1 --credits 5000 --no-rate-limit',
  ],
  check(flags) {
    const changes = ['name', 'expiry', 'partners', 'description', 'scope', 'allow-address', 'metadata', 'tag']
    const switches = ['unbind', 'all-scopes', 'any-address', 'no-tags']
    if (!changes.some((flag) => flags[flag] !== undefined) && !switches.some((flag) => flags[flag] === true) && !hasLimitFlags(flags)) {
      throw new CliError(
        'ERR_USAGE',
        '"passcodes edit" needs --name, --expiry, --partners or --unbind, --description, --scope or --all-scopes, --allow-address or --any-address, --metadata, --tag or --no-tags, or a limit (--rate-limit, --credits, --no-rate-limit, --no-credits)',
      )
    }
    checkRestrictions(flags, 'passcodes edit')
    limitFlags(flags)
    if (flags.partners !== undefined && flags.unbind === true) {
      throw new CliError('ERR_USAGE', '"passcodes edit" takes --partners or --unbind, not both')
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
      ...(flags.partners !== undefined && { partners: parsePartners(String(flags.partners)) }),
      ...(flags.unbind === true && { partners: null }),
      ...(flags.description !== undefined && { description: String(flags.description) }),
      ...restrictionsInput(flags),
      ...limitFlags(flags),
    })
    output.result({ passcode: updated }, `Updated passcode ${describe(updated)}.${descriptionLines(updated)}${restrictionLines(updated)}`)
  },
}

const rotate: CommandSpec = {
  path: ['passcodes', 'rotate'],
  summary: 'give a passcode a new value, printed once; the old value works for --overlap minutes more',
  positionals: [{ name: 'passcode', description: "the passcode's id or name" }],
  options: {
    account,
    overlap: {
      type: 'string',
      value: '<minutes>',
      description:
        'how long the old value keeps working: 0 (stops now) to 10080 (7 days); required, except for a passcode found in public, which gets 0 (a leaked value gets no overlap)',
    },
  },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes rotate Acme --account acc_1 --overlap 60', 'passcode-auth passcodes rotate Acme --account acc_1 --overlap 0'],
  check: (flags) => {
    if (flags.overlap !== undefined) parseOverlap(String(flags.overlap))
  },
  async run(context) {
    const { flags, actor, output } = context
    const overlapMinutes = flags.overlap === undefined ? undefined : parseOverlap(String(flags.overlap))
    const accountId = String(flags.account)
    const target = await findPasscode(context, accountId, context.positionals[0]!)
    // SPEC §5.45: only a leaked passcode may leave it out; the service decides the rest (an overlap for one is refused).
    if (overlapMinutes === undefined && target.leak === null) {
      throw new CliError('ERR_USAGE', '"passcodes rotate" needs --overlap <minutes> (0 to 10080), unless the passcode was found in public', {
        setting: '--overlap',
      })
    }
    const { auth } = await context.runtime()
    const { passcode, value } = await auth.passcodes.rotate(actor, accountId, target.id, overlapMinutes === undefined ? {} : { overlapMinutes })
    const until =
      passcode.previousValueEndsAt === null
        ? 'The old value has stopped working.'
        : `The old value (${target.hint}) keeps working until ${formatInstant(passcode.previousValueEndsAt)}.`
    output.result(
      { passcode, value },
      [
        `Rotated passcode ${describe(passcode)}.`,
        '',
        `  ${value}`,
        '',
        `This is the only time the new value is shown: the service keeps only its hash. ${until}`,
      ].join('\n'),
    )
  },
}

const disable: CommandSpec = {
  path: ['passcodes', 'disable'],
  summary: 'disable a passcode without deleting it: calls with it fail at once until "passcodes enable"',
  positionals: [{ name: 'passcode', description: "the passcode's id or name" }],
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes disable Acme --account acc_1'],
  async run(context) {
    const accountId = String(context.flags.account)
    const target = await findPasscode(context, accountId, context.positionals[0]!)
    const { auth } = await context.runtime()
    const passcode = await auth.passcodes.disable(context.actor, accountId, target.id)
    const changed = target.status !== 'disabled'
    context.output.result(
      { passcode, changed },
      changed
        ? `Disabled passcode ${describe(passcode)}. Calls with it fail from now on; it keeps its value, name, partners and expiry ("passcodes enable" undoes it).`
        : `Passcode ${describe(passcode)} was disabled already; nothing changed.`,
    )
  },
}

const enable: CommandSpec = {
  path: ['passcodes', 'enable'],
  summary: 'enable a disabled passcode: calls with it work again at once (one found in public only once confirmed)',
  positionals: [{ name: 'passcode', description: "the passcode's id or name" }],
  options: {
    account,
    yes: {
      type: 'boolean',
      description: 'enable a passcode whose value was found in public without asking: its public value works again (rotate it instead)',
    },
  },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth passcodes enable Acme --account acc_1'],
  async run(context) {
    const accountId = String(context.flags.account)
    const target = await findPasscode(context, accountId, context.positionals[0]!)
    // SPEC §5.45: only an explicit enable, confirmed by one told the value is public, brings a leaked value back.
    const leaked = target.leak !== null
    if (leaked) await confirmOrRefuse(context, `Enable "${target.name}" with its public value? ${LEAKED_ENABLE_WARNING}`)
    const { auth } = await context.runtime()
    const passcode = await auth.passcodes.enable(context.actor, accountId, target.id)
    const changed = target.status === 'disabled'
    context.output.result(
      { passcode, changed },
      changed
        ? `Enabled passcode ${describe(passcode)}.${leaked ? ' Its public value works again.' : ''}`
        : `Passcode ${describe(passcode)} was not disabled; nothing changed.`,
    )
  },
}

const remove: CommandSpec = {
  path: ['passcodes', 'delete'],
  summary: 'delete a passcode; calls with it fail at once',
  positionals: [{ name: 'passcode', description: "the passcode's id or name" }],
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

/** `passcodes create|list|edit|rotate|delete|disable|enable`. */
export const passcodesCommands: readonly CommandSpec[] = [create, list, edit, rotate, remove, disable, enable]
