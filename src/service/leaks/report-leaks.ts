import type { Actor } from '../../core/entities'
import { InvalidInputError } from '../../core/errors'
import { isWellFormedPasscode } from '../../core/passcode-format'
import type { CredentialMatch } from '../../ports/passcode-store'
import { storeCall } from '../deadline'
import type { EventInput } from '../events'
import { leakMessage, type LeakMessageData } from './leak-message'

/** What a leak report needs of the service: each given by `createPasscodeAuth`, no more. */
export interface LeaksContext {
  /** The verification read (`verify/peppers.ts` `findUnderPeppers`): what the store holds for a value under every pepper. */
  readonly read: (token: string) => Promise<{ readonly match: CredentialMatch | null; readonly hash: string }>
  /** Emails the account's recipients once; `false` when there is no mailer or the send failed. */
  readonly mail: (accountId: string, message: { readonly subject: string; readonly text: string; readonly html: string }) => Promise<boolean>
  readonly now: () => number
  readonly emit: ((event: EventInput) => void) | undefined
  /** The `leaks.action` option. */
  readonly action: 'disable' | 'revoke'
  /** The `allowReactivation` option (SPEC §5.8): an expired passcode an edit can bring back is still live. */
  readonly allowReactivation: boolean
  /** The passcode jobs it acts through, as the system actor. */
  readonly passcodes: {
    disable(actor: Actor, accountId: string, passcodeId: string): Promise<unknown>
    delete(actor: Actor, accountId: string, passcodeId: string): Promise<void>
  }
  readonly userPasscodes: { revoke(actor: Actor, accountId: string, userId: string): Promise<unknown> }
  /** Writes the audit record of one leak response; the audit trail's writer goes here. */
  readonly recordAudit?: ((record: LeakAuditRecord) => Promise<void>) | undefined
}

/** One reported token: the value, and where it was found when that differs per token. */
export interface LeakedToken {
  /** The value as found. */
  readonly token: string
  /** Where it was found (a URL), overriding the report's `url`. */
  readonly url?: string | undefined
  /** Who found it, overriding the report's `source`. */
  readonly source?: string | undefined
}

/** Where a report comes from and what it does. */
export interface LeakReportOptions {
  /** Who found the tokens: `github`, `gitleaks`, `support ticket 123`. Shown in the email. */
  readonly source: string
  /** Where they were found, when known. */
  readonly url?: string | undefined
  /** What a confirmed account passcode leak does, overriding the `leaks.action` option. */
  readonly action?: 'disable' | 'revoke' | undefined
}

/** The answer for one token, in the order given. */
export interface LeakVerdict {
  /** The value as reported (the reporter's own input, returned for matching). */
  readonly token: string
  /** `true_positive` when the value is a live passcode of any account, else `false_positive`. */
  readonly label: 'true_positive' | 'false_positive'
}

/** `auth.leaks`: the response to exposed passcodes (SPEC §5.42). */
export interface LeaksApi {
  /**
   * Labels each token and acts on the live ones: an account passcode is disabled (or
   * deleted with `action: 'revoke'`), a user passcode revoked, the account's
   * `recipients` emailed once and a `passcode.leaked` event emitted. A second report of
   * the same token changes nothing and sends nothing.
   */
  report(tokens: readonly (string | LeakedToken)[], options: LeakReportOptions): Promise<LeakVerdict[]>
}

/**
 * What the audit trail (SPEC §5.40) records of one leak response: the lead wires the
 * trail's writer into {@link createLeaksApi}'s `recordAudit`. Never the value.
 */
export interface LeakAuditRecord {
  readonly accountId: string
  readonly kind: 'account' | 'user'
  /** The account passcode's ID, or the user's ID for a user passcode. */
  readonly target: string
  readonly name: string | null
  readonly hint: string | null
  readonly source: string
  readonly url: string | null
  readonly action: 'disabled' | 'deleted' | 'revoked'
}

/** The actor a leak report acts as: the service itself, not a person. */
export const LEAK_REPORT_ACTOR: Actor = Object.freeze({ userId: 'system:leak-report', role: 'admin' })

const MAX_TEXT = 2_048
const clean = (text: string | undefined): string | null => {
  if (typeof text !== 'string') return null
  const cleaned = text
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .trim()
    .slice(0, MAX_TEXT)
  return cleaned === '' ? null : cleaned
}

/**
 * Whether the match is a live passcode value: one that authenticates now, or would
 * again without a new value. So a disabled passcode, or one the account does not accept
 * at the moment, is live (an admin can enable it or change the setting); a revoked,
 * deleted or rotated-out value is not, nor an expired one unless `allowReactivation`
 * lets an edit bring it back.
 */
function isLive(match: CredentialMatch, hash: string, now: number, allowReactivation: boolean): boolean {
  const { record } = match
  const expired = record.expiresAt !== null && now >= record.expiresAt
  if (expired && !(allowReactivation && match.kind === 'account')) return false
  if (match.kind === 'user') return record.hash === hash && match.record.revokedAt === null
  if (record.hash === hash) return true
  const { previousHash, previousHashEndsAt } = match.record
  return previousHash === hash && previousHashEndsAt !== null && now < previousHashEndsAt
}

/**
 * `auth.leaks.report`. Each token costs at most one indexed read per configured pepper
 * (the verification read, `findUnderPeppers`), and none when its checksum fails. The
 * response is idempotent by state: a disabled passcode is not disabled again, a deleted
 * or revoked one is no longer live, so a replay acts on nothing and mails nobody.
 */
export function createLeaksApi(context: LeaksContext): LeaksApi {
  const { emit } = context
  const apis = context

  async function act(match: CredentialMatch, where: { source: string; url: string | null }, action: 'disable' | 'revoke'): Promise<void> {
    const { accountId } = match.record
    let data: LeakMessageData
    if (match.kind === 'user') {
      await apis.userPasscodes.revoke(LEAK_REPORT_ACTOR, accountId, match.record.userId)
      data = { kind: 'user', accountId, name: `user ${match.record.userId}`, hint: null, ...where, action: 'revoked' }
    } else {
      const { id, name, hint } = match.record
      if (action === 'revoke') await apis.passcodes.delete(LEAK_REPORT_ACTOR, accountId, id)
      else if (match.record.disabledAt == null) await apis.passcodes.disable(LEAK_REPORT_ACTOR, accountId, id)
      else return // Already disabled: a replay, or an admin's own action. Nothing to do or tell.
      data = { kind: 'account', accountId, name, hint, ...where, action: action === 'revoke' ? 'deleted' : 'disabled' }
    }
    const target = match.kind === 'user' ? match.record.userId : match.record.id
    await apis.recordAudit?.({
      accountId,
      kind: data.kind,
      target,
      name: match.kind === 'account' ? data.name : null,
      hint: data.hint,
      source: data.source,
      url: data.url,
      action: data.action,
    })
    const notified = await notify(data)
    emit?.({
      type: 'passcode.leaked',
      accountId,
      kind: data.kind,
      ...(match.kind === 'account' ? { passcodeId: target, name: data.name, hint: match.record.hint } : { userId: target }),
      source: data.source,
      url: data.url,
      action: data.action,
      notified,
    })
  }

  /** Emails the account's recipients once; a failure is reported on the event, not retried. */
  const notify = (data: LeakMessageData): Promise<boolean> => context.mail(data.accountId, leakMessage(data))

  return {
    async report(tokens, reportOptions) {
      // A JavaScript caller may pass anything: check it as unknown input.
      const givenTokens: unknown = tokens
      const given = reportOptions as LeakReportOptions | undefined
      if (!Array.isArray(givenTokens)) throw new InvalidInputError('tokens', 'Invalid tokens: must be an array of values or { token, url?, source? }')
      for (const entry of givenTokens as unknown[]) {
        const token = typeof entry === 'string' ? entry : (entry as { token?: unknown } | null)?.token
        if (typeof token !== 'string') throw new InvalidInputError('tokens', 'Invalid tokens: each must be a string or { token: string }')
      }
      if (typeof given?.source !== 'string') throw new InvalidInputError('source', 'Invalid source: must be a string (who found the tokens)')
      const source = clean(given.source) ?? 'unknown'
      const url = clean(given.url)
      const action = given.action ?? context.action
      const verdicts = new Map<string, LeakVerdict['label']>()
      const answers: LeakVerdict[] = []
      for (const entry of tokens) {
        const token = typeof entry === 'string' ? entry : entry.token
        let label = verdicts.get(token)
        if (label === undefined) {
          label = 'false_positive'
          if (isWellFormedPasscode(token)) {
            const read = await storeCall(() => context.read(token))
            if (read.match !== null && isLive(read.match, read.hash, context.now(), context.allowReactivation)) {
              label = 'true_positive'
              const where = typeof entry === 'string' ? { source, url } : { source: clean(entry.source) ?? source, url: clean(entry.url) ?? url }
              await act(read.match, where, action)
            }
          }
          verdicts.set(token, label)
        }
        answers.push({ token, label })
      }
      return answers
    },
  }
}
