import type { WebhookDeliveryView, WebhookEndpointView, WebhookEventType } from '../../index'
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/index'
import type { CommandSpec, OptionSpec } from '../command'
import type { Flags } from '../config'
import { CliError } from '../exit-codes'
import { formatInstant, table } from '../output'

/*
 * `webhooks …` (SPEC §5.53): an account's endpoints and their deliveries, as an admin
 * manages them in the dashboard. The signing secret is printed by `create` and
 * `rotate-secret` only, once.
 */

const account: OptionSpec = { type: 'string', value: '<accountId>', description: 'the account', required: true }
const eventsHelp = `"all", or event types separated by commas (${WEBHOOK_EVENT_TYPES.join(', ')})`

/** `--events all` or `--events passcode.leaked,credits.low`: whether each is a type is the service's rule. */
function parseEvents(text: string): 'all' | WebhookEventType[] {
  if (text.trim() === 'all') return 'all'
  return text
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '') as WebhookEventType[]
}

function parseLimit(flags: Flags): number | undefined {
  if (flags.limit === undefined) return undefined
  if (!/^\d{1,3}$/.test(String(flags.limit)))
    throw new CliError('ERR_USAGE', 'Invalid --limit: must be a whole number (1 to 100)', { setting: '--limit' })
  return Number(flags.limit)
}

const eventsText = (endpoint: WebhookEndpointView) => (endpoint.events === 'all' ? 'all' : endpoint.events.join(', '))
const stateText = (endpoint: WebhookEndpointView) =>
  endpoint.enabled ? (endpoint.failingSince === null ? 'enabled' : `enabled, failing since ${formatInstant(endpoint.failingSince)}`) : 'disabled'

function describe(endpoint: WebhookEndpointView): string {
  return `${endpoint.url} (id ${endpoint.id}) in account ${endpoint.accountId}: ${stateText(endpoint)}, events ${eventsText(endpoint)}`
}

function secretLines(endpoint: WebhookEndpointView, secret: string, what: string): string {
  return [
    `${what} ${describe(endpoint)}.`,
    '',
    `  ${secret}`,
    '',
    'This is the only time the signing secret is shown: give it to the receiver, which verifies each delivery with it.',
  ].join('\n')
}

function deliveryLine(delivery: WebhookDeliveryView): string {
  const code = delivery.lastStatusCode === null ? '' : ` ${delivery.lastStatusCode}`
  return `${delivery.id} ${delivery.eventType}: ${delivery.status}${code}, ${delivery.attempts} attempt(s)`
}

const list: CommandSpec = {
  path: ['webhooks', 'list'],
  summary: "list an account's webhook endpoints (admins; never a secret)",
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks list --account acc_1', 'passcode-auth webhooks list --account acc_1 --json'],
  async run(context) {
    const accountId = String(context.flags.account)
    const { auth } = await context.runtime()
    const endpoints = await auth.webhooks.list(context.actor, accountId)
    const rows = endpoints.map((endpoint) => [endpoint.id, endpoint.url, eventsText(endpoint), stateText(endpoint), endpoint.description])
    context.output.result(
      { accountId, endpoints },
      endpoints.length === 0 ? `No webhook endpoints in account ${accountId}.` : table(['ID', 'URL', 'EVENTS', 'STATE', 'DESCRIPTION'], rows),
    )
  },
}

const create: CommandSpec = {
  path: ['webhooks', 'create'],
  summary: 'register a webhook endpoint and print its signing secret, once',
  options: {
    account,
    url: {
      type: 'string',
      value: '<url>',
      description: 'where deliveries go: http or https, a host that resolves to a public address',
      required: true,
    },
    events: { type: 'string', value: '<all|types>', description: eventsHelp, required: true },
    description: { type: 'string', value: '<text>', description: 'what it is for: up to 500 characters' },
    disabled: { type: 'boolean', description: 'register it disabled: it receives nothing until `webhooks edit --enable`' },
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth webhooks create --account acc_1 --url https://hooks.example.com/passcodes --events all',
    'passcode-auth webhooks create --account acc_1 --url https://hooks.example.com/later --events all --disabled',
    'passcode-auth webhooks create --account acc_1 --url https://pager.example.com/in --events passcode.leaked,user_passcode.leaked --description "On-call"',
  ],
  async run(context) {
    const { flags } = context
    const { auth } = await context.runtime()
    const { endpoint, secret } = await auth.webhooks.create(context.actor, String(flags.account), {
      url: String(flags.url),
      events: parseEvents(String(flags.events)),
      ...(flags.description !== undefined && { description: String(flags.description) }),
      ...(flags.disabled === true && { enabled: false }),
    })
    context.output.result({ endpoint, secret }, secretLines(endpoint, secret, 'Registered webhook endpoint'))
  },
}

const edit: CommandSpec = {
  path: ['webhooks', 'edit'],
  summary: "change a webhook endpoint's URL, event types or description, or enable or disable it",
  positionals: [{ name: 'endpoint', description: "the endpoint's id" }],
  options: {
    account,
    url: { type: 'string', value: '<url>', description: 'the new URL' },
    events: { type: 'string', value: '<all|types>', description: `the new event types: ${eventsHelp}` },
    description: { type: 'string', value: '<text>', description: 'the new description; "" removes it' },
    enable: { type: 'boolean', description: 'send to it again (clears a failing state)' },
    disable: { type: 'boolean', description: 'stop sending to it' },
  },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks edit ep_1 --account acc_1 --events all', 'passcode-auth webhooks edit ep_1 --account acc_1 --enable'],
  check(flags) {
    if (flags.enable === true && flags.disable === true) throw new CliError('ERR_USAGE', 'Give --enable or --disable, not both')
    if ([flags.url, flags.events, flags.description].every((flag) => flag === undefined) && flags.enable !== true && flags.disable !== true) {
      throw new CliError('ERR_USAGE', '"webhooks edit" needs --url, --events, --description, --enable or --disable')
    }
  },
  async run(context) {
    const { flags } = context
    const { auth } = await context.runtime()
    const endpoint = await auth.webhooks.update(context.actor, String(flags.account), context.positionals[0]!, {
      ...(flags.url !== undefined && { url: String(flags.url) }),
      ...(flags.events !== undefined && { events: parseEvents(String(flags.events)) }),
      ...(flags.description !== undefined && { description: String(flags.description) }),
      ...(flags.enable === true && { enabled: true }),
      ...(flags.disable === true && { enabled: false }),
    })
    context.output.result({ endpoint }, `Updated webhook endpoint ${describe(endpoint)}.`)
  },
}

const remove: CommandSpec = {
  path: ['webhooks', 'delete'],
  summary: 'delete a webhook endpoint and its deliveries (pending ones are never sent)',
  positionals: [{ name: 'endpoint', description: "the endpoint's id" }],
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks delete ep_1 --account acc_1'],
  async run(context) {
    const accountId = String(context.flags.account)
    const endpointId = context.positionals[0]!
    const { auth } = await context.runtime()
    await auth.webhooks.delete(context.actor, accountId, endpointId)
    context.output.result({ accountId, endpointId, deleted: true }, `Deleted webhook endpoint ${endpointId} of account ${accountId}.`)
  },
}

const rotate: CommandSpec = {
  path: ['webhooks', 'rotate-secret'],
  summary: 'give a webhook endpoint a new signing secret, printed once; the old one also signs for 24 hours',
  positionals: [{ name: 'endpoint', description: "the endpoint's id" }],
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks rotate-secret ep_1 --account acc_1'],
  async run(context) {
    const { auth } = await context.runtime()
    const { endpoint, secret } = await auth.webhooks.rotateSecret(context.actor, String(context.flags.account), context.positionals[0]!)
    const until = endpoint.previousSecretEndsAt === null ? '' : `\nThe old secret also signs until ${formatInstant(endpoint.previousSecretEndsAt)}.`
    context.output.result({ endpoint, secret }, `${secretLines(endpoint, secret, 'New signing secret of webhook endpoint')}${until}`)
  },
}

const test: CommandSpec = {
  path: ['webhooks', 'test'],
  summary: 'queue a webhook.test event to an endpoint, whatever event types it receives',
  positionals: [{ name: 'endpoint', description: "the endpoint's id" }],
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks test ep_1 --account acc_1'],
  async run(context) {
    const { auth } = await context.runtime()
    const delivery = await auth.webhooks.sendTest(context.actor, String(context.flags.account), context.positionals[0]!)
    context.output.result({ delivery }, `Queued ${deliveryLine(delivery)}; the dispatcher of \`serve\` (or \`webhooks dispatch\`) sends it.`)
  },
}

const deliveries: CommandSpec = {
  path: ['webhooks', 'deliveries'],
  summary: 'recent webhook deliveries of an account, newest first: status, last code and time',
  options: {
    account,
    endpoint: { type: 'string', value: '<endpointId>', description: 'only those to this endpoint' },
    cursor: { type: 'string', value: '<cursor>', description: 'continue after the page that printed this cursor' },
    limit: { type: 'string', value: '<n>', description: 'deliveries per page, 1 to 100 (default 25)' },
  },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks deliveries --account acc_1', 'passcode-auth webhooks deliveries --account acc_1 --endpoint ep_1 --limit 10'],
  check: (flags) => void parseLimit(flags),
  async run(context) {
    const { flags } = context
    const accountId = String(flags.account)
    const limit = parseLimit(flags)
    const { auth } = await context.runtime()
    const page = await auth.webhooks.deliveries(context.actor, accountId, {
      ...(flags.endpoint !== undefined && { endpointId: String(flags.endpoint) }),
      ...(flags.cursor !== undefined && { cursor: String(flags.cursor) }),
      ...(limit !== undefined && { limit }),
    })
    const rows = page.deliveries.map((delivery) => [
      delivery.id,
      delivery.endpointId,
      delivery.eventType,
      delivery.status,
      String(delivery.attempts),
      delivery.lastStatusCode === null ? '' : String(delivery.lastStatusCode),
      formatInstant(delivery.lastAttemptAt),
      delivery.lastError ?? '',
    ])
    const more = page.nextCursor === null ? '' : `\nMore: --cursor ${page.nextCursor}`
    context.output.result(
      page,
      page.deliveries.length === 0
        ? `No webhook deliveries in account ${accountId}.`
        : `${table(['ID', 'ENDPOINT', 'EVENT', 'STATUS', 'ATTEMPTS', 'CODE', 'LAST ATTEMPT', 'ERROR'], rows)}${more}`,
    )
  },
}

const replay: CommandSpec = {
  path: ['webhooks', 'replay'],
  summary: 'send a webhook delivery once more, now, with its webhook-id',
  positionals: [{ name: 'delivery', description: "the delivery's id (its webhook-id)" }],
  options: { account },
  groups: ['storage', 'actor'],
  examples: ['passcode-auth webhooks replay msg_1 --account acc_1'],
  async run(context) {
    const { auth } = await context.runtime()
    const delivery = await auth.webhooks.replay(context.actor, String(context.flags.account), context.positionals[0]!)
    context.output.result({ delivery }, `Queued again: ${deliveryLine(delivery)}.`)
  },
}

const dispatch: CommandSpec = {
  path: ['webhooks', 'dispatch'],
  summary: 'one delivery pass: send the webhook attempts that are due (what `serve` runs every second)',
  groups: ['storage'],
  examples: ['passcode-auth webhooks dispatch'],
  async run(context) {
    const { auth } = await context.runtime()
    const report = await auth.webhooks.dispatch()
    context.output.result(
      report,
      `${report.succeeded} delivered, ${report.retrying} to retry, ${report.failed} failed, ${report.disabled.length} endpoint(s) disabled, ${report.noticesSent} email(s) sent.`,
    )
  },
}

/** `webhooks list|create|edit|delete|rotate-secret|test|deliveries|replay|dispatch`. */
export const webhooksCommands: readonly CommandSpec[] = [list, create, edit, remove, rotate, test, deliveries, replay, dispatch]
