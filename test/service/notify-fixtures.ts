import type { Mailer, MailMessage, NotificationReport } from '../../src/index'
import { MailerError } from '../../src/index'

/**
 * A mailer that records accepted messages and fails when `shouldFail(callNumber)`
 * says so (1-based), optionally after a delay so that runners interleave.
 */
export function scriptedMailer(shouldFail: (call: number) => boolean = () => false, delayMs: () => number = () => 0) {
  const delivered: MailMessage[] = []
  let calls = 0
  const mailer: Mailer & { delivered: MailMessage[]; readonly calls: number } = {
    delivered,
    get calls() {
      return calls
    },
    async send(message) {
      calls += 1
      const call = calls
      const delay = delayMs()
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
      if (shouldFail(call)) throw new MailerError(`scripted failure ${call}`)
      delivered.push(message)
    },
  }
  return mailer
}

/** Fails every other call: 1st, 3rd, 5th… */
export const everyOtherCall = (call: number): boolean => call % 2 === 1

/** The key a notification is deduplicated on, from a report line. */
export const reportKey = (line: { passcodeId: string; kind: string; expiresAt: Date }): string =>
  `${line.passcodeId}|${line.kind}|${line.expiresAt.toISOString()}`

/** Counts how often each key occurs. */
export function tally(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1)
  return counts
}

/** Sent keys of a list of reports. */
export const sentKeys = (reports: readonly NotificationReport[]): string[] => reports.flatMap((report) => report.sent.map(reportKey))

/** Fixed recipients for every account. */
export const everyone = (accountId: string): string[] => [`admin@${accountId}.example`]
