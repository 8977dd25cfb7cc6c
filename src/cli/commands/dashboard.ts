import type { CommandSpec } from '../command'
import { CliError } from '../exit-codes'
import { dashboardLoginsOf } from '../server/dashboard-logins'

const link: CommandSpec = {
  path: ['dashboard', 'link'],
  summary: 'print a one-time login link to the running server\'s dashboard, as a given user',
  options: {
    account: { type: 'string', value: '<accountId>', description: 'the account the session manages', required: true },
  },
  groups: ['storage', 'actor'],
  examples: [
    'passcode-auth dashboard link --account acc_demo',
    'passcode-auth dashboard link --account acc_demo --as u_42 --role member',
  ],
  async run(context) {
    const runtime = await context.runtime()
    const running = context.forwarded ? dashboardLoginsOf(runtime) : undefined
    if (running === undefined) {
      throw new CliError(
        'ERR_USAGE',
        'Login links are made by the running server: start `passcode-auth serve` on this data folder first (its banner prints the operator\'s link). With DATABASE_URL, use that link.',
      )
    }
    const accountId = String(context.flags.account)
    const url = `${running.url}${running.logins.link({ accountId, actor: context.actor })}`
    // The link is what was asked for: on stdout, and nowhere else (SPEC §5.35).
    context.output.result({ url, expiresAt: new Date(Date.now() + 15 * 60_000).toISOString() }, url)
  },
}

/** `dashboard link`. */
export const dashboardCommands: readonly CommandSpec[] = [link]
