import { arch, cpus, platform } from 'node:os'
import { HANG_MS } from './fleet-delivery'
import { BOUND_MS, DRAIN_MS, type FleetSoakResult, type InstanceRefusedError, type PoolSettings } from './fleet'

/** The heading of the fleet soak's section in a report file (docs/soak.md), which holds both runs. */
export const FLEET_HEADING = '## Fleet soak'

/**
 * `file`'s text with the fleet section (from {@link FLEET_HEADING} to the end) replaced by
 * `fleet`, or with everything before it replaced by `single`: each run rewrites its own part.
 */
export function mergeReport(existing: string, update: { fleet: string } | { single: string }): string {
  const at = existing.indexOf(`\n${FLEET_HEADING}\n`)
  const before = at < 0 ? existing : existing.slice(0, at + 1)
  const after = at < 0 ? '' : existing.slice(at + 1)
  return 'fleet' in update ? `${before.trimEnd()}\n\n${update.fleet}` : `${update.single.trimEnd()}\n\n${after}`.trimEnd() + '\n'
}

/** What the fleet soak does, for the reader of the report. */
export const FLEET_DESCRIPTION = [
  'Three instances of a small host program using the package (scripts/soak/fleet-instance.ts: `nodeRequirePasscode`',
  'and management calls, a `pg` Pool made as the Pool line says) run as child processes on one',
  'throw-away PostgreSQL cluster on 127.0.0.1: instances 1 and 2 through PgBouncer in transaction mode with the direct',
  '`listenConnectionString`, instance 3 directly, each connection through a TCP proxy of its own. The runner sends',
  'verifications to every instance (three quarters with live passcodes, a quarter with passcodes deleted, disabled or',
  'rotated out, most recent first) and management calls (creates, deletes, rotations without overlap, disables) to a',
  'random instance, and draws faults at random, one at a time: a silent cut of one instance (its proxies drop every',
  'byte both ways and keep both sockets open: no FIN, no RST) and its heal; a hung balancer in front of one instance',
  '(the same, and its proxies also accept new connections and never answer them, not even after the heal, as a load',
  'balancer or pooler that stopped working does) and its heal; `kill -9` of one instance and its restart;',
  '`pg_ctl restart -m fast`; and a PgBouncer restart.',
]

/** What the chaos mode for delivery adds, for the reader of the report. */
export const DELIVERY_DESCRIPTION = [
  'Chaos mode for delivery (`--delivery`, scripts/soak/fleet-delivery.ts): every instance also runs a webhook dispatcher',
  '(a 20 s lease) and an expiry notifier (a pass every 2 s, a 20 s lease) mailing through a real SMTP server (the',
  '`smtp-server` package) of the runner. Every account has one endpoint for every event type, on a loopback receiver of',
  'one of four kinds in turn: one that answers 204, and three that fail the first attempt of every other `webhook-id`:',
  `by answering 500, by holding it past the attempt's 15 s (cut after ${HANG_MS / 1_000} s), or by destroying the socket at once.`,
  'Every receiver verifies each signature it answers 2xx. The runner also reports leaks of live passcodes (each',
  'disabled, its admins emailed) and creates passcodes that expire in 10 days in accounts of their own (one',
  'expiry email each), and draws two more faults: `kill-delivering`, `kill -9` of an instance while it has webhook',
  'attempts on the way (then its restart), and `smtp-down`, the SMTP server stopped (connections refused) and',
  `started again. After the traffic the run waits, at most ${DRAIN_MS / 1_000} s, until no delivery is pending and every email`,
  'due went out, then compares the database (deliveries, events, audit records, leak marks) with what the runner saw',
  'answered and what the receivers and the SMTP server got.',
]

/** The instances' pool, for the reader of the report. */
const POOL_TEXT: Record<PoolSettings, string> = {
  documented:
    'the settings of [operations](operations.md#the-pg-pool): `max: 10`, `connectionTimeoutMillis: 2000`, `keepAlive: true`, `keepAliveInitialDelayMillis: 10000`',
  'pg-defaults': "pg's defaults, the pool as pg's README makes one: `new Pool({ connectionString, max: 4 })` (no connection timeout, no keepalive)",
}

/** The fleet section when the instances refused their pool at start: what was refused, and why nothing ran. */
export function fleetRefusalMarkdown(error: InstanceRefusedError, context: { command: string; pool: PoolSettings }): string {
  return [
    FLEET_HEADING,
    '',
    `Command: \`${context.command}\`  `,
    `Date: ${new Date().toISOString()}  `,
    `Pool: ${POOL_TEXT[context.pool]}`,
    '',
    `Verdict: **refused at start**: instance ${error.instance} did not start, and no traffic ran. Its error:`,
    '',
    `> ${error.refusal}`,
    '',
  ].join('\n')
}

const seconds = (ms: number): string => `${(ms / 1_000).toFixed(1)} s`

/** The credits count (SPEC §5.50): one passcode's credits spent across the fleet, through the faults. */
function creditsMarkdown(result: FleetSoakResult): string[] {
  const c = result.credits
  const exact = c.faultsWhileSpending === 0 && c.unanswered === 0
  return [
    '### Credits across the fleet (SPEC §5.50)',
    '',
    `One passcode with ${c.credits} credits, verified on all three instances (one loop each, paced to spend them over about half the run),`,
    'through the faults; after the traffic every instance stops (giving back what it holds) and the runner reads the',
    "store's balance. Admitted must never pass the credits. With no fault while credits were spent and every request",
    'answered, admitted + balance must be exactly the credits; otherwise what is missing must stay within the bound of',
    '[limits](limits.md#bounds): one lease per instance killed (or lease answer lost in a fault), at most half of what the store held,',
    'plus the requests that got no answer (each may have spent one).',
    '',
    '| Credits | Admitted (per instance) | 429 Credits exhausted | Unanswered | Balance at the end | Missing | Faults while spending (kills) | Bound | Over-spent |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ${c.credits} | ${c.admitted} (${Object.entries(c.admittedBy)
      .map(([n, count]) => `${n}: ${count}`)
      .join(
        ', ',
      )}) | ${c.exhausted} | ${c.unanswered} | ${c.balanceAtEnd ?? 'unread'} | ${c.missing ?? 'unknown'} | ${c.faultsWhileSpending} (${c.kills}) | ${exact ? '0 (exact)' : c.bound} | ${c.overSpent ? '**yes**' : 'no'} |`,
    '',
  ]
}

/** The fleet soak's summary in Markdown: the three counts first, then the faults and the traffic. */
export function fleetMarkdown(result: FleetSoakResult, context: { command: string; loadAtStart: number; loadAtEnd: number }): string {
  const { counts } = result
  const faultKinds = new Map<string, number>()
  for (const fault of result.faults) faultKinds.set(fault.kind, (faultKinds.get(fault.kind) ?? 0) + 1)
  const lines = [
    FLEET_HEADING,
    '',
    `Command: \`${context.command}\`  `,
    `Date: ${new Date().toISOString()}  `,
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${platform()} ${arch()}, Node ${process.version};  `,
    `load average ${context.loadAtStart.toFixed(1)} at the start and ${context.loadAtEnd.toFixed(1)} at the end (1 min; other work shares the machine)`,
    '',
    `Pool: ${POOL_TEXT[result.pool]}  `,
    `Faults drawn ${result.seed === undefined ? 'with `Math.random`' : `from seed ${result.seed}`}; a silent cut or a hung balancer lasts ${seconds(result.cutMs[0])} to ${seconds(result.cutMs[1])}`,
    '',
    `Verdict: **${result.passed ? 'passed' : 'FAILED'}**`,
    '',
    ...FLEET_DESCRIPTION,
    '',
    '| Count (each must be 0) | Value |',
    '| --- | ---: |',
    `| a deleted, disabled or rotated-out passcode accepted more than ${BOUND_MS / 1_000} s after the change | ${counts.deletedAcceptedPastBound} |`,
    `| a live passcode refused with a 4xx | ${counts.liveRefused} |`,
    `| an instance unavailable (5xx, no answer in 5 s) outside a fault touching it and the ${BOUND_MS / 1_000} s after it ended | ${counts.unavailableOutsideFault} |`,
    '',
    `- Duration ${seconds(result.elapsedMs)}, ${result.verifications} verifications (${Math.round(result.verifications / (result.elapsedMs / 1_000))}/s), ${result.revokedChecks} of them with a revoked passcode`,
    `- Revoked passcodes accepted within the bound (a request sent before the change reached that instance): ${result.revokedAcceptedWithinBound}, the latest ${Math.round(result.longestRevokedAcceptanceMs)} ms after the change`,
    `- Management: ${Object.entries(result.management)
      .map(([op, { ok, failed }]) => `${op} ${ok}${failed > 0 ? ` (+${failed} failed during faults)` : ''}`)
      .join(', ')}`,
    `- Faults: ${result.faults.length} (${[...faultKinds].map(([kind, n]) => `${kind} ${n}`).join(', ')})`,
    '',
    '| Instance | Connection | 200 | 4xx | 5xx | no answer | delivery events |',
    '| ---: | --- | ---: | ---: | ---: | ---: | --- |',
    ...result.instanceModes.map((mode, index) => {
      const n = index + 1
      const tally = result.answers[n]!
      const events = Object.entries(result.deliveryEvents[n] ?? {})
        .map(([type, count]) => `${type} ${count}`)
        .join(', ')
      return `| ${n} | ${mode} | ${tally.ok} | ${tally.refused} | ${tally.failed} | ${tally.noAnswer} | ${events || 'none'} |`
    }),
    '',
    '### Faults (times from the start of traffic; recovery: first answer of a live passcode after the fault ended)',
    '',
    '| # | Fault | Instances | Start | Lasted | Recovered after |',
    '| ---: | --- | --- | ---: | ---: | --- |',
    ...result.faults.map(
      (fault, index) =>
        `| ${index + 1} | ${fault.kind}${fault.detail === undefined ? '' : ` (${fault.detail})`} | ${fault.instances.join(', ') || 'SMTP server'} | ${seconds(fault.startedAt)} | ${seconds(fault.endedAt - fault.startedAt)} | ${fault.instances
          .map((n) => {
            const after = fault.recoveredAfter[n]
            return `${n}: ${after === undefined ? 'not before the end' : `${Math.round(after)} ms`}`
          })
          .join(', ')} |`,
    ),
    '',
    ...creditsMarkdown(result),
  ]
  if (result.delivery !== undefined) {
    const { counts, totals } = result.delivery
    const attempts = Object.entries(totals.attempts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([answer, n]) => `${answer} ${n}`)
      .join(', ')
    lines.push(
      '### Delivery',
      '',
      ...DELIVERY_DESCRIPTION,
      '',
      '| Count (each must be 0) | Value |',
      '| --- | ---: |',
      `| events lost (a change answered without its event delivered; a delivery failed, pending after the drain, or never answered 2xx) | ${counts.eventsLost} |`,
      `| an event delivered under two \`webhook-id\`s, or a \`webhook-id\` the database does not hold | ${counts.duplicatesOtherId} |`,
      `| a signature that did not verify | ${counts.invalidSignatures} |`,
      `| expiry emails lost | ${counts.expiryEmailsLost} |`,
      `| expiry emails doubled | ${counts.expiryEmailsDoubled} |`,
      `| leak emails lost | ${counts.leakEmailsLost} |`,
      `| leak emails doubled | ${counts.leakEmailsDoubled} |`,
      `| audit records lost (a change answered without its record) | ${counts.auditLost} |`,
      `| an event without the audit record of its change, or such a record without its event | ${counts.eventsWithoutChange} |`,
      '',
      `- Drained ${result.delivery.drained ? 'in' : 'NOT within'} ${seconds(result.delivery.drainMs)} after the traffic`,
      `- ${totals.events} events, ${totals.deliveries} deliveries; attempts the receivers got, by answer: ${attempts}`,
      `- Delivered again with the same \`webhook-id\` (at least once; allowed): ${counts.redeliveriesSameId}`,
      `- Emails: ${totals.expiryEmails} expiry, ${totals.leakEmails} leak; ${totals.audit} audit records`,
      '',
    )
  }
  if (result.violations.length > 0) {
    lines.push('### Violations', '', ...result.violations.map((entry) => `- instance ${entry.instance} at ${seconds(entry.at)}: ${entry.what}`), '')
  }
  return lines.join('\n')
}
