import type { CommandSpec } from '../command'
import { readSetting, SETTINGS } from '../config'
import { CliError } from '../exit-codes'
import { createDashboardLogins, dashboardLoginsOf } from '../server/dashboard-logins'
import { showLoginLink } from '../server/shown-once'

/** `http://127.0.0.1:3000`: where a local server is reached, from PASSCODE_AUTH_HOST and PORT as `serve` reads them. */
function localUrl(host: string, port: number): string {
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${local.includes(':') ? `[${local}]` : local}:${port === 0 ? 3000 : port}`
}

const link: CommandSpec = {
  path: ['dashboard', 'link'],
  summary:
    'make a one-time login link to the dashboard of serve, as a given user (made in the store: no running server needed); shown on a terminal, else written to an owner-only file whose path is printed',
  options: {
    account: { type: 'string', value: '<accountId>', description: 'the account the session manages', required: true },
    url: {
      type: 'string',
      value: '<url>',
      description:
        "the server's URL as the browser reaches it (default: the running serve's on this data folder, else http://<PASSCODE_AUTH_HOST>:<PORT>)",
    },
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth dashboard link --account acc_demo',
    'passcode-auth dashboard link --account acc_demo --as u_42 --role member',
    'passcode-auth dashboard link --account acc_1 --url https://auth.example.com --json',
  ],
  check(flags) {
    if (typeof flags.url !== 'string') return
    let parsed: URL | undefined
    try {
      parsed = new URL(flags.url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.search !== '' || parsed.hash !== '') {
      throw new CliError('ERR_USAGE', "Invalid --url: must be the server's http:// or https:// URL, without a query", { setting: '--url' })
    }
  },
  async run(context) {
    const { flags, io } = context
    const runtime = await context.runtime()
    // A serve running on this data folder runs this command: its URL is known. Otherwise
    // the link is a row of the store, which every serve on it accepts.
    const running = context.forwarded ? dashboardLoginsOf(runtime) : undefined
    const logins = running?.logins ?? createDashboardLogins(runtime)
    const base =
      typeof flags.url === 'string'
        ? flags.url.replace(/\/+$/, '')
        : (running?.url ?? localUrl(readSetting(io, flags, SETTINGS.host), readSetting(io, flags, SETTINGS.port)))
    const made = await logins.link({ accountId: String(flags.account), actor: context.actor })
    const url = `${base}${made.path}`
    // A login token never goes to stdout or --json (SPEC §5.35): a terminal's stderr shows
    // it to the person; anywhere else it goes to an owner-only file, and stdout says where.
    const where = showLoginLink(context.io, runtime.storage === 'embedded' ? runtime.location : undefined, url)
    const expiresAt = made.expiresAt.toISOString()
    const until = `one use, until ${expiresAt}`
    if (where.on === 'file') context.output.result({ file: where.file, expiresAt }, `The login link (${until}) is in ${where.file}`)
    else context.output.result({ shownOn: 'terminal', expiresAt }, `(${until})`)
  },
}

/** `dashboard link`. */
export const dashboardCommands: readonly CommandSpec[] = [link]
