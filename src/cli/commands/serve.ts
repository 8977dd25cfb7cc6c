import type { AddressInfo } from 'node:net'
import { startExpiryNotifier, startWebhookDispatcher } from '../../index'
import type { CommandContext, CommandSpec } from '../command'
import { mailConfig, serverConfig } from '../config'
import { listenControlSocket, type ControlSocket } from '../control-socket'
import { dataFolderPaths } from '../data-folder'
import { CliError } from '../exit-codes'
import { createDashboardLogins, DASHBOARD_BASE, registerDashboardLogins } from '../server/dashboard-logins'
import { connectCurlLine, DEMO, demoOwed, seedDemo, type DemoSeed } from '../server/demo'
import { showToPerson } from '../server/shown-once'
import { untilStopped } from '../server/until-stopped'
import { commandName } from '../command-name'
import { missingKeyError } from '../encryption-keys'

/** The URL a local client reaches the server at: a wildcard address means this machine. */
function baseUrl(host: string, port: number): string {
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`
}

function banner(
  context: CommandContext,
  lines: {
    storage: string
    mailer: string
    limiter: string
    proxies: readonly string[]
    cors: readonly string[]
    url: string
    socket: boolean
    dashboard: boolean
  },
): void {
  const { output } = context
  output.info(`passcode-auth serve: listening on ${lines.url}`)
  output.info(
    `  routes   GET /v1/connect?partner=<name>, GET /1/events.json (protected), GET /healthz${lines.dashboard ? `, ${DASHBOARD_BASE} (dashboard)` : ''}`,
  )
  output.info(`  storage  ${lines.storage}`)
  output.info(`  mailer   ${lines.mailer}`)
  output.info(`  limiter  ${lines.limiter}`)
  if (lines.proxies.length > 0) output.info(`  proxies  client address from X-Forwarded-For when the peer is ${lines.proxies.join(', ')}`)
  if (lines.cors.length > 0) output.info(`  cors     pages of ${lines.cors.join(', ')} may call /v1/connect`)
  if (lines.socket) output.info('  manage   other passcode-auth commands on this data folder are run by this server while it runs')
  if (!lines.dashboard) output.info('  dashboard off (--dashboard serves it; on by default only for a loopback --host)')
  output.info('')
}

/**
 * What a person is shown once (SPEC §5.35): the demo passcode's `curl` line and the
 * operator's login link, on a terminal's stderr or in the data folder's `shown.txt`
 * (see {@link showToPerson}); never on stdout, in the request log or in `--json`.
 */
function shownOnce(demo: DemoSeed | undefined, url: string, dashboard: { link: string; accountId: string } | undefined, command: string): string[] {
  const lines: string[] = []
  if (demo !== undefined) {
    lines.push(
      `New data folder: created account ${demo.accountId} with the passcode "${demo.passcodeName}" and whitelisted partner ${demo.partner}.`,
      'The passcode value is shown only here, once. Try it:',
      '',
      `  ${connectCurlLine(url, demo)}`,
      '',
    )
  }
  if (dashboard !== undefined) {
    lines.push(
      `Dashboard for account ${dashboard.accountId} (one-time login link, valid 15 minutes):`,
      `  ${dashboard.link}`,
      `  More links, also for a user's own page: ${command} dashboard link --account ${dashboard.accountId} [--as <userId> --role member]`,
      '',
    )
  }
  return lines
}

const serve: CommandSpec = {
  path: ['serve'],
  summary: 'run the reference server: GET /v1/connect, GET /1/events.json, GET /healthz',
  options: {
    account: {
      type: 'string',
      value: '<accountId>',
      description: `the account the operator's dashboard login link manages (default ${DEMO.accountId})`,
    },
  },
  groups: ['storage', 'mail', 'server', 'actor'],
  examples: [
    'passcode-auth serve',
    'passcode-auth serve --account acc_1',
    'PORT=8080 DATABASE_URL=postgres://app@db/app PASSCODE_AUTH_PEPPER=… passcode-auth serve --host 0.0.0.0',
  ],
  async run(context) {
    if (context.forwarded) throw new CliError('ERR_USAGE', 'passcode-auth serve is already running on this data folder')
    const { output, io, flags } = context
    const settings = serverConfig(io, flags)
    const mail = mailConfig(io, flags)
    // Loaded here, so that the management commands do not load the server; asked for
    // before the store opens, so that reading the files overlaps with opening it.
    const server = Promise.all([
      import('../server/app'),
      import('../server/dashboard-routes'),
      import('../server/request-log'),
      import('../server/leak-route'),
    ])
    server.catch(() => undefined)
    const runtime = await context.runtime()
    const owed = demoOwed(runtime, flags['no-demo'] !== true)
    if (!runtime.hasEncryptionKeys) output.notice(`warning: ${missingKeyError().message}. Until then, granting or revealing a user passcode fails.`)
    const [{ buildServer }, { dashboardRoutes }, { createRequestLog }, { leakRoute, readLeakKeys }] = await server
    // The log has the path without the query: the login link's token is in its query.
    const log = createRequestLog({ write: io.stdout, human: settings.logFormat === 'text', color: settings.logColor })
    const logins = createDashboardLogins(runtime)
    const leaks =
      settings.leakKeysFile === undefined ? [] : [leakRoute(runtime, readLeakKeys(settings.leakKeysFile.file, settings.leakKeysFile.setting))]
    const app = buildServer(runtime, {
      mounts: [...leaks, ...(settings.dashboard ? dashboardRoutes(runtime, logins, { trustProxy: settings.trustProxy }) : [])],
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
      throw new CliError(
        'ERR_SETTING',
        `Cannot listen on ${settings.host}:${settings.port}${code ? ` (${code})` : ''}; choose another --port or --host`,
        {
          setting: '--port',
          cause: error,
        },
      )
    }
    // Seeded once listening, so that a port already in use does not swallow the demo.
    const demo = owed ? await seedDemo(runtime, context.actor) : undefined
    const url = baseUrl(settings.host, address.port)
    registerDashboardLogins(runtime, logins, url)
    const dashboardAccount = typeof flags.account === 'string' ? flags.account : DEMO.accountId
    const command = commandName()
    let socket: ControlSocket | undefined
    if (runtime.storage === 'embedded') {
      socket = await listenControlSocket(dataFolderPaths(runtime.location).socket, (argv, caller) => context.execute(argv, runtime, caller)).catch(
        () => undefined,
      )
    }

    // Listen for signals before the banner says how to stop: a signal sent as soon as
    // "Stop with Ctrl+C." is read must find the handler in place.
    const stopped = io.stopped ?? untilStopped(io.env)
    const mailer = mail.kind === 'console' ? `console (expiry emails to ${mail.to.join(', ')} are printed here)` : `SMTP ${mail.url.host}`
    const storage = runtime.storage === 'embedded' ? `embedded PostgreSQL (PGlite) in ${runtime.location}` : runtime.location
    const { rateLimit } = settings
    const limiter =
      rateLimit === false
        ? 'off (--rate-limit off)'
        : `${rateLimit.maxFailures} failed attempts per client address and per account in ${rateLimit.windowMs / 1000} s, then 429` +
          (runtime.storage === 'postgres' ? ', counted across every instance on this database' : '')
    // A login link is made only where a person will see it: on a terminal, or in the data folder's file.
    const dataDir = runtime.storage === 'embedded' ? runtime.location : undefined
    const linkShown = settings.dashboard && (io.stderrIsTTY === true || dataDir !== undefined)
    const dashboard = linkShown
      ? { accountId: dashboardAccount, link: `${url}${(await logins.link({ accountId: dashboardAccount, actor: context.actor })).path}` }
      : undefined
    const dashboardSummary = settings.dashboard ? { enabled: true, url: `${url}${DASHBOARD_BASE}/`, accountId: dashboardAccount } : { enabled: false }
    if (!output.json) {
      banner(context, {
        storage,
        mailer,
        limiter,
        proxies: settings.trustProxy,
        cors: settings.corsOrigins,
        url,
        socket: socket !== undefined,
        dashboard: settings.dashboard,
      })
    }
    const shown = showToPerson(io, dataDir, shownOnce(demo, url, dashboard, command))
    if (output.json) {
      output.result(
        {
          status: 'listening',
          url,
          storage,
          mailer,
          limiter,
          trustProxy: settings.trustProxy,
          cors: settings.corsOrigins,
          dashboard: dashboardSummary,
          ...(demo && { demo: { accountId: demo.accountId, partner: demo.partner, passcodeName: demo.passcodeName } }),
          ...(shown.on === 'file' && { shownFile: shown.file }),
        },
        '',
      )
    }
    // Where it went, never what it is: stdout and stderr may both be collected.
    if (shown.on === 'file') {
      const what = [demo && 'the demo passcode', dashboard && 'a dashboard login link'].filter(Boolean).join(' and ')
      output.notice(`stderr is not a terminal: ${what} ${demo && dashboard ? 'are' : 'is'} in ${shown.file} (readable by you only), not printed.`)
    } else if (settings.dashboard && dashboard === undefined) {
      output.notice(`Make a dashboard login link with: ${command} dashboard link --account ${dashboardAccount} --url ${url}`)
    }
    output.info('Stop with Ctrl+C.')
    // Its first pass (a scan of the store) starts once the server is up and has said so,
    // not in the middle of its start.
    const notifier = startExpiryNotifier(runtime.auth, {
      intervalMs: settings.notifyIntervalMs,
      onReport: (report) => {
        if (report.sent.length + report.failed.length > 0) output.notice(`notifier: ${report.sent.length} sent, ${report.failed.length} failed`)
      },
      onError: (error) => output.notice(`notifier: pass failed: ${(error as Error).message}`),
    })
    // Webhook deliveries (SPEC §5.53): a pass every second; every instance runs one, the store's claims send each attempt once.
    const webhooks = startWebhookDispatcher(runtime.auth, {
      onReport: (report) => {
        if (report.failed + report.disabled.length > 0)
          output.notice(`webhooks: ${report.failed} delivery(ies) failed, ${report.disabled.length} endpoint(s) disabled`)
      },
      onError: (error) => output.notice(`webhooks: pass failed: ${(error as Error).message}`),
    })

    output.info(`${await stopped}: shutting down…`)
    // No new connections or forwarded commands; the requests in flight finish (or are cut
    // after the grace), then the notifier's pass; runCli then closes the store, which
    // flushes pending usage records (auth.close()), and releases the folder's lock.
    await Promise.all([socket?.close(), app.close(settings.shutdownGraceMs)])
    await Promise.all([notifier.stop(), webhooks.stop()])
    output.info('Stopped.')
  },
}

/** `serve`. */
export const serveCommands: readonly CommandSpec[] = [serve]
