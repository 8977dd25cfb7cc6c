import type { AddressInfo } from 'node:net'
import { startExpiryNotifier } from '../../index'
import type { CommandContext, CommandSpec } from '../command'
import { mailConfig, serverConfig } from '../config'
import { listenControlSocket, type ControlSocket } from '../control-socket'
import { dataFolderPaths } from '../data-folder'
import { CliError, EXIT_CODES } from '../exit-codes'
import { createDashboardLogins, DASHBOARD_BASE, registerDashboardLogins } from '../server/dashboard-logins'
import { connectCurlLine, DEMO, demoOwed, seedDemo, type DemoSeed } from '../server/demo'

/** The URL a local client reaches the server at: a wildcard address means this machine. */
function baseUrl(host: string, port: number): string {
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`
}

/**
 * Resolves at the first SIGINT or SIGTERM. A later one ends the process at once, unless
 * it comes within a second: under `npm start`, Ctrl+C reaches this process both from
 * the terminal and relayed by npm.
 */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals) => {
      const at = Date.now()
      process.off('SIGINT', first).off('SIGTERM', first)
      const again = () => {
        if (Date.now() - at > 1_000) process.exit(EXIT_CODES.unexpected)
      }
      process.on('SIGINT', again).on('SIGTERM', again)
      resolve(signal)
    }
    process.on('SIGINT', first).on('SIGTERM', first)
  })
}

function banner(
  context: CommandContext,
  lines: { storage: string; mailer: string; limiter: string; proxies: readonly string[]; cors: readonly string[]; url: string; demo?: DemoSeed; socket: boolean; dashboard: { link: string; accountId: string } },
): void {
  const { output } = context
  output.info(`passcode-auth serve: listening on ${lines.url}`)
  output.info(`  routes   GET /v1/connect?partner=<name>, GET /1/events.json (protected), GET /healthz, ${DASHBOARD_BASE} (dashboard)`)
  output.info(`  storage  ${lines.storage}`)
  output.info(`  mailer   ${lines.mailer}`)
  output.info(`  limiter  ${lines.limiter}`)
  if (lines.proxies.length > 0) output.info(`  proxies  client address from X-Forwarded-For when the peer is ${lines.proxies.join(', ')}`)
  if (lines.cors.length > 0) output.info(`  cors     pages of ${lines.cors.join(', ')} may call /v1/connect`)
  if (lines.socket) output.info('  manage   other passcode-auth commands on this data folder are run by this server while it runs')
  output.info('')
  if (lines.demo !== undefined) {
    // On stderr: the request log goes to stdout, and a value must never land in a log.
    const { demo } = lines
    output.showSecret(`New data folder: created account ${demo.accountId} with the passcode "${demo.passcodeName}" and whitelisted partner ${demo.partner}.`)
    output.showSecret('The passcode value is shown only here (on stderr, apart from the request log). Try it:')
    output.showSecret('')
    output.showSecret(`  ${connectCurlLine(lines.url, demo)}`)
    output.showSecret('')
  }
  // Also on stderr: the link signs in as the operator, once.
  output.showSecret(`Dashboard for account ${lines.dashboard.accountId} (one-time login link, valid 15 minutes):`)
  output.showSecret(`  ${lines.dashboard.link}`)
  output.showSecret(`  More links, also for a user's own page: passcode-auth dashboard link --account ${lines.dashboard.accountId} [--as <userId> --role member]`)
  output.showSecret('')
  output.info('Stop with Ctrl+C.')
}

const serve: CommandSpec = {
  path: ['serve'],
  summary: 'run the reference server: GET /v1/connect, GET /1/events.json, GET /healthz',
  options: {
    account: { type: 'string', value: '<accountId>', description: `the account the operator's dashboard login link manages (default ${DEMO.accountId})` },
  },
  groups: ['storage', 'mail', 'server', 'actor'],
  examples: ['passcode-auth serve', 'passcode-auth serve --account acc_1', 'PORT=8080 DATABASE_URL=postgres://app@db/app PASSCODE_AUTH_PEPPER=… passcode-auth serve --host 0.0.0.0'],
  async run(context) {
    if (context.forwarded) throw new CliError('ERR_USAGE', 'passcode-auth serve is already running on this data folder')
    const { output, io, flags } = context
    const settings = serverConfig(io, flags)
    const mail = mailConfig(io, flags)
    // Loaded here, so that the management commands do not load the server; asked for
    // before the store opens, so that reading the files overlaps with opening it.
    const server = Promise.all([import('../server/app'), import('../server/dashboard-routes'), import('../server/request-log')])
    server.catch(() => undefined)
    const runtime = await context.runtime()
    const owed = demoOwed(runtime, flags['no-demo'] !== true)
    const [{ buildServer }, { dashboardRoutes }, { createRequestLog }] = await server
    // The log has the path without the query: the login link's token is in its query.
    const log = createRequestLog({ write: io.stdout, human: settings.logFormat === 'text', color: settings.logColor })
    const logins = createDashboardLogins()
    const app = buildServer(runtime, {
      mounts: dashboardRoutes(runtime, logins),
      corsOrigins: settings.corsOrigins,
      trustProxy: settings.trustProxy,
      ...(flags.quiet !== true && !output.json && { log }),
    })
    let address: AddressInfo
    try {
      address = await app.listen(settings.host, settings.port)
    } catch (error) {
      await app.close()
      const code = (error as { code?: string }).code
      throw new CliError('ERR_SETTING', `Cannot listen on ${settings.host}:${settings.port}${code ? ` (${code})` : ''}; choose another --port or --host`, {
        setting: '--port',
        cause: error,
      })
    }
    // Seeded once listening, so that a port already in use does not swallow the demo.
    const demo = owed ? await seedDemo(runtime, context.actor) : undefined
    const url = baseUrl(settings.host, address.port)
    registerDashboardLogins(runtime, logins, url)
    const dashboardAccount = typeof flags.account === 'string' ? flags.account : DEMO.accountId
    const dashboard = { accountId: dashboardAccount, link: `${url}${logins.link({ accountId: dashboardAccount, actor: context.actor })}` }
    const notifier = startExpiryNotifier(runtime.auth, {
      intervalMs: settings.notifyIntervalMs,
      onReport: (report) => {
        if (report.sent.length + report.failed.length > 0) output.notice(`notifier: ${report.sent.length} sent, ${report.failed.length} failed`)
      },
      onError: (error) => output.notice(`notifier: pass failed: ${(error as Error).message}`),
    })
    let socket: ControlSocket | undefined
    if (runtime.storage === 'embedded') {
      socket = await listenControlSocket(dataFolderPaths(runtime.location).socket, (argv) => context.execute(argv, runtime)).catch(() => undefined)
    }

    // Listen for signals before the banner says how to stop: a signal sent as soon as
    // "Stop with Ctrl+C." is read must find the handler in place.
    const stopped = io.stopped ?? untilSignal()
    const mailer = mail.kind === 'console' ? `console (expiry emails to ${mail.to.join(', ')} are printed here)` : `SMTP ${mail.url.host}`
    const storage = runtime.storage === 'embedded' ? `embedded PostgreSQL (PGlite) in ${runtime.location}` : runtime.location
    const { rateLimit } = settings
    const limiter =
      rateLimit === false
        ? 'off (--rate-limit off)'
        : `${rateLimit.maxFailures} failed attempts per client address and per account in ${rateLimit.windowMs / 1000} s, then 429` +
          (runtime.storage === 'postgres' ? ', counted across every instance on this database' : '')
    if (output.json) {
      output.result(
        { status: 'listening', url, storage, mailer, limiter, trustProxy: settings.trustProxy, cors: settings.corsOrigins, dashboard, ...(demo && { demo: { ...demo, curl: connectCurlLine(url, demo) } }) },
        '',
      )
    } else {
      banner(context, { storage, mailer, limiter, proxies: settings.trustProxy, cors: settings.corsOrigins, url, socket: socket !== undefined, dashboard, ...(demo && { demo }) })
    }

    const signal = await stopped
    output.info(`${signal}: shutting down…`)
    await socket?.close()
    await app.close()
    await notifier.stop()
    output.info('Stopped.')
  },
}

/** `serve`. */
export const serveCommands: readonly CommandSpec[] = [serve]
