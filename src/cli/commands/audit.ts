import type { AuditAction, AuditBreak, AuditChainPoint, AuditFilters, AuditRecord } from '../../index'
import type { CommandSpec, OptionSpec } from '../command'
import type { Flags } from '../config'
import { CliError, EXIT_CODES } from '../exit-codes'
import { formatInstant } from '../output'

const account: OptionSpec = { type: 'string', value: '<accountId>', description: 'the account', required: true }
const filterOptions: Readonly<Record<string, OptionSpec>> = {
  account,
  action: {
    type: 'string',
    value: '<action>',
    multiple: true,
    description: 'only this action (passcode.created, passcode.rotated…); repeat for more',
  },
  target: { type: 'string', value: '<id>', description: 'only records about this passcode ID or user ID' },
  actor: { type: 'string', value: '<userId>', description: 'only what this user did' },
  from: { type: 'string', value: '<ISO time>', description: 'only records at or after this instant' },
  to: { type: 'string', value: '<ISO time>', description: 'only records before this instant' },
}

function instant(flags: Flags, name: 'from' | 'to'): Date | undefined {
  if (flags[name] === undefined) return undefined
  const date = new Date(String(flags[name]))
  if (Number.isNaN(date.getTime()))
    throw new CliError('ERR_USAGE', `Invalid --${name}: must be an ISO 8601 time such as 2026-01-31T00:00:00Z`, { setting: `--${name}` })
  return date
}

function filters(flags: Flags): AuditFilters {
  const actions = flags.action === undefined ? undefined : ([] as string[]).concat(flags.action as string | string[])
  const from = instant(flags, 'from')
  const to = instant(flags, 'to')
  return {
    ...(actions !== undefined && { action: actions as AuditAction[] }),
    ...(flags.target !== undefined && { target: String(flags.target) }),
    ...(flags.actor !== undefined && { actor: String(flags.actor) }),
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
  }
}

const checkFilters = (flags: Flags): void => void filters(flags)

function targetText(record: AuditRecord): string {
  const { target } = record
  if (target.type === 'passcode') return `passcode "${target.name}" (${target.id})`
  if (target.type === 'webhook') return `webhook endpoint ${target.id}`
  return target.type === 'user' ? `user ${target.id}` : 'the account'
}

function changesText(record: AuditRecord): string {
  return Object.entries(record.changes)
    .map(([field, { before, after }]) => `${field}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`)
    .join('; ')
}

/** One line per record, for a person. */
function line(record: AuditRecord): string {
  const actor = record.actor.type === 'system' ? 'system' : `${record.actor.userId} (${record.actor.role})`
  const changes = changesText(record)
  return `#${record.sequence} ${formatInstant(new Date(record.at))} ${record.action} ${targetText(record)} by ${actor}${changes === '' ? '' : ` [${changes}]`}`
}

const list: CommandSpec = {
  path: ['audit', 'list'],
  summary: "one page of an account's audit trail, newest first (admins)",
  options: {
    ...filterOptions,
    cursor: { type: 'string', value: '<cursor>', description: 'continue after the page that printed this cursor' },
    limit: { type: 'string', value: '<n>', description: 'records per page, 1 to 200 (default 50)' },
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth audit list --account acc_1',
    'passcode-auth audit list --account acc_1 --action passcode.rotated --from 2026-01-01T00:00:00Z',
  ],
  check(flags) {
    checkFilters(flags)
    if (flags.limit !== undefined && !/^\d{1,3}$/.test(String(flags.limit)))
      throw new CliError('ERR_USAGE', 'Invalid --limit: must be a whole number (1 to 200)', { setting: '--limit' })
  },
  async run(context) {
    const { auth } = await context.runtime()
    const page = await auth.audit.list(context.actor, String(context.flags.account), {
      ...filters(context.flags),
      ...(context.flags.cursor !== undefined && { cursor: String(context.flags.cursor) }),
      ...(context.flags.limit !== undefined && { limit: Number(context.flags.limit) }),
    })
    const lines = page.records.length === 0 ? ['No audit records.'] : page.records.map(line)
    if (page.cursor !== null) lines.push(`More: --cursor ${page.cursor}`)
    context.output.result(page, lines.join('\n'))
  },
}

const exportCommand: CommandSpec = {
  path: ['audit', 'export'],
  summary: "an account's audit trail as JSON lines, oldest first, for a SIEM or an archive (admins)",
  options: filterOptions,
  groups: ['storage', 'actor'],
  examples: ['passcode-auth audit export --account acc_1 > acc_1-audit.jsonl'],
  check: checkFilters,
  async run(context) {
    const { auth } = await context.runtime()
    const lines = auth.audit.export(context.actor, String(context.flags.account), filters(context.flags))
    if (context.output.json) {
      const records: unknown[] = []
      for await (const text of lines) records.push(JSON.parse(text))
      context.output.result(records, '')
      return
    }
    for await (const text of lines) context.io.stdout(text)
  },
}

/** What a break means, in words, at the record it names (SPEC §5.44). */
const BREAKS: Readonly<Record<AuditBreak, (at: number) => string>> = {
  changed: (at) => `record #${at} was changed: its content no longer matches its hash`,
  removed: (at) => `record #${at} is missing`,
  tail_removed: (at) => `the records from #${at} on are missing`,
  outside: (at) => `row #${at} lies outside the chain (at or below its start, past its head, or a sequence repeated)`,
  head_missing: (at) => `the chain's head row is missing, though the account has records (from #${at}) or data its writes left`,
  start_moved: (at) => `the chain's start (#${at}) moved without a prune record that says so`,
  unkeyed: (at) => `record #${at} carries a plain hash after keyed records`,
  unknown_key: (at) => `record #${at} is keyed with an audit key this configuration does not have (PASSCODE_AUTH_AUDIT_KEYS)`,
}

const ANCHOR = /^(\d{1,15}):([0-9a-f]{64})$/

/** `--anchor <sequence>:<hash>`, as an earlier verify printed it. */
function anchorOf(flags: Flags): AuditChainPoint | undefined {
  if (flags.anchor === undefined) return undefined
  const match = ANCHOR.exec(String(flags.anchor))
  if (match === null) {
    throw new CliError('ERR_USAGE', 'Invalid --anchor: must be <sequence>:<hash> as an earlier `audit verify` printed it', { setting: '--anchor' })
  }
  return { sequence: Number(match[1]), hash: match[2]! }
}

const verify: CommandSpec = {
  path: ['audit', 'verify'],
  summary: "check every row of an account's audit trail: nothing changed, removed, added or re-keyed; exits 6 when something was",
  options: {
    account,
    anchor: {
      type: 'string',
      value: '<sequence>:<hash>',
      description: 'the head an earlier verify printed, kept elsewhere: also sees a cut-off tail, and a start moved past it without a prune record',
    },
  },
  groups: ['storage'],
  examples: [
    'passcode-auth audit verify --account acc_1',
    'passcode-auth audit verify --account acc_1 --anchor 42:0f5e2b7c9a1d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f',
  ],
  check(flags) {
    anchorOf(flags)
  },
  async run(context) {
    const { auth } = await context.runtime()
    const accountId = String(context.flags.account)
    const anchor = anchorOf(context.flags)
    const result = await auth.audit.verify(accountId, anchor === undefined ? {} : { anchor })
    if (result.ok) {
      const plain =
        result.unkeyed === 0
          ? ''
          : `\n${result.unkeyed} of them carry a plain hash (written before audit keys were configured): they prove order, not who wrote them.`
      const human =
        `The audit trail of ${accountId} verifies: ${result.records} record${result.records === 1 ? '' : 's'}, newest #${result.head.sequence}.${plain}\n` +
        `Keep this elsewhere to check later with --anchor: ${result.head.sequence}:${result.head.hash}`
      context.output.result(result, human)
      return EXIT_CODES.ok
    }
    context.output.result(result, `The audit trail of ${accountId} does NOT verify: ${BREAKS[result.reason](result.at)} (${result.reason}).`)
    return EXIT_CODES.broken
  },
}

const prune: CommandSpec = {
  path: ['audit', 'prune'],
  summary: 'delete audit records older than --keep-days in every account; each chain still verifies',
  options: { 'keep-days': { type: 'string', value: '<days>', description: 'how many days of records to keep (default 400)' } },
  groups: ['storage'],
  examples: ['passcode-auth audit prune', 'passcode-auth audit prune --keep-days 730'],
  check(flags) {
    if (flags['keep-days'] !== undefined && !/^[1-9]\d{0,5}$/.test(String(flags['keep-days']))) {
      throw new CliError('ERR_USAGE', 'Invalid --keep-days: must be a whole number of days, at least 1', { setting: '--keep-days' })
    }
  },
  async run(context) {
    const { auth } = await context.runtime()
    const keepDays = context.flags['keep-days'] === undefined ? undefined : Number(context.flags['keep-days'])
    const report = await auth.audit.prune(keepDays === undefined ? {} : { keepDays })
    context.output.result(
      report,
      `Deleted ${report.removed} audit record${report.removed === 1 ? '' : 's'} older than ${formatInstant(report.before)}.`,
    )
  },
}

/** `audit list`, `audit export`, `audit verify`, `audit prune`. */
export const auditCommands: readonly CommandSpec[] = [list, exportCommand, verify, prune]
