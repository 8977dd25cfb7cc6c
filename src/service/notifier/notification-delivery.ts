import { NoRecipientsError, PasscodeAuthError } from '../../core/errors'
import { isVisibleAscii } from '../../core/rules'
import type { Mailer, MailMessage } from '../../ports/mailer'
import type { NotificationRecipients } from '../../ports/recipients'
import type { NotificationContent, NotificationMessageData, NotificationTemplate } from './notification-messages'
import type { NotificationFailureReason } from './notification-report'
import { settleWithin } from '../deadline'

/** A step of a delivery that failed, with the reason the report shows. */
export class DeliveryFailure extends Error {
  constructor(
    readonly reason: NotificationFailureReason,
    message: string,
  ) {
    super(message)
    this.name = 'DeliveryFailure'
  }
}

const TIMED_OUT = Symbol('timed out')

// The loser's later rejection is observed, so a hung mailer that eventually throws is
// no unhandled rejection, and the timer never keeps the process alive.
const within = <T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> => settleWithin(promise, ms, () => TIMED_OUT)

/** A message for the report that never carries a host error's text (it may hold credentials). */
function describe(error: unknown, fallback: string): string {
  if (error instanceof PasscodeAuthError) return error.message
  const name = error instanceof Error ? error.name : typeof error
  return `${fallback} (${name})`
}

// One address, loosely: something@something, no spaces or control characters. The
// mailer and the SMTP server do the real checking; this stops obvious mistakes and
// header injection.
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/** Calls the host's `recipients(accountId)` with a deadline and checks what it returns. */
export async function resolveRecipients(recipients: NotificationRecipients, accountId: string, timeoutMs: number): Promise<string[]> {
  let answer: unknown
  try {
    answer = await within(
      Promise.resolve().then(() => recipients(accountId)),
      timeoutMs,
    )
  } catch (error) {
    throw new DeliveryFailure('ERR_RECIPIENTS_FAILED', describe(error, 'recipients(accountId) threw'))
  }
  if (answer === TIMED_OUT) {
    throw new DeliveryFailure('ERR_RECIPIENTS_FAILED', `recipients(accountId) did not answer within ${timeoutMs} ms`)
  }
  if (!Array.isArray(answer)) {
    throw new DeliveryFailure('ERR_RECIPIENTS_FAILED', 'recipients(accountId) must return an array of email addresses')
  }
  const addresses = new Set<string>()
  for (const entry of answer) {
    const address = typeof entry === 'string' ? entry.trim() : ''
    if (!ADDRESS.test(address) || !isVisibleAscii(address)) {
      throw new DeliveryFailure('ERR_RECIPIENTS_FAILED', 'recipients(accountId) returned something that is not an email address')
    }
    addresses.add(address)
  }
  if (addresses.size === 0) throw new DeliveryFailure('ERR_NO_RECIPIENTS', new NoRecipientsError(accountId).message)
  return [...addresses]
}

/** Runs a template and checks that it produced all three parts. */
export function render(template: NotificationTemplate, data: NotificationMessageData): NotificationContent {
  let content: NotificationContent
  try {
    content = template(data)
  } catch (error) {
    throw new DeliveryFailure('ERR_TEMPLATE_FAILED', describe(error, `The ${data.kind} template threw`))
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a host's template may return nothing; what it returned is checked below
  const { subject, text, html } = (content ?? {}) as Partial<NotificationContent>
  if (typeof subject !== 'string' || typeof text !== 'string' || typeof html !== 'string' || subject.trim() === '') {
    throw new DeliveryFailure('ERR_TEMPLATE_FAILED', `The ${data.kind} template must return { subject, text, html } strings`)
  }
  if (/[\r\n]/.test(subject)) {
    throw new DeliveryFailure('ERR_TEMPLATE_FAILED', `The ${data.kind} template returned a subject with a line break`)
  }
  return { subject, text, html }
}

/** Sends through the mailer; a throw or a hang past `timeoutMs` becomes a {@link DeliveryFailure}. */
export async function sendWithin(mailer: Mailer, message: MailMessage, timeoutMs: number): Promise<void> {
  let result: unknown
  try {
    result = await within(
      Promise.resolve().then(() => mailer.send(message)),
      timeoutMs,
    )
  } catch (error) {
    throw new DeliveryFailure('ERR_MAILER_FAILED', describe(error, 'The mailer failed'))
  }
  if (result === TIMED_OUT) {
    throw new DeliveryFailure('ERR_MAILER_TIMEOUT', `The mailer did not finish within ${timeoutMs} ms`)
  }
}
