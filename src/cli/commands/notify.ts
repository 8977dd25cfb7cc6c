import type { NotificationReport } from '../../index'
import type { CommandSpec } from '../command'
import { EXIT_CODES } from '../exit-codes'
import { formatInstant } from '../output'

function summary(report: NotificationReport): string {
  const lines = [`Notifier pass: ${report.sent.length} sent, ${report.failed.length} failed, ${report.skipped.length} skipped.`]
  for (const item of report.sent) {
    lines.push(
      `  sent     ${item.kind} for "${item.name}" (account ${item.accountId}, expires ${formatInstant(item.expiresAt)}) to ${item.to.join(', ')}`,
    )
  }
  for (const item of report.failed) {
    lines.push(`  failed   ${item.kind} for "${item.name}" (account ${item.accountId}): ${item.reason}, ${item.message}`)
  }
  for (const item of report.skipped) lines.push(`  skipped  ${item.kind} for "${item.name}" (account ${item.accountId}): ${item.reason}`)
  if (report.failed.length > 0) lines.push('Failed notifications are retried on the next pass.')
  return lines.join('\n')
}

const notify: CommandSpec = {
  path: ['notify'],
  summary: 'run one expiry-notifier pass: email passcodes that are expiring soon or expired',
  groups: ['storage', 'mail'],
  examples: [
    'passcode-auth notify',
    'PASSCODE_AUTH_SMTP_URL=smtp://user:secret@mail.example.com:587 passcode-auth notify --mail-from auth@example.com --notify-to ops@example.com',
  ],
  async run(context) {
    const { auth } = await context.runtime()
    const report = await auth.notifyExpirations()
    context.output.result(report, summary(report))
    // A failed send is the mailer being unavailable; the pass itself did its job.
    return report.failed.length > 0 ? EXIT_CODES.unavailable : EXIT_CODES.ok
  },
}

/** `notify`. */
export const notifyCommands: readonly CommandSpec[] = [notify]
