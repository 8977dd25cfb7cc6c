import type { AuditSigner } from '../../core/audit'
import type { Actor } from '../../core/entities'
import type { AuditChanges } from '../../core/audit'
import { ConfigurationError, InvalidInputError } from '../../core/errors'
import { isWellFormedPasscode } from '../../core/passcode-format'
import type { CredentialMatch, Invalidation, LeakMark, LeakReport, PasscodeStore } from '../../ports/passcode-store'
import { auditEntry } from '../audit-entry'
import { storeCall } from '../deadline'
import type { EventInput } from '../events'
import type { LeakNotices } from './leak-notices'

/** What a leak report needs of the service: each given by `createPasscodeAuth`, no more. */
export interface LeaksContext {
  /** The verification read (`verify/peppers.ts` `findUnderPeppers`): what the store holds for a value under every pepper. */
  readonly read: (token: string) => Promise<{ readonly match: CredentialMatch | null; readonly hash: string }>
  /** Acts on a leak through {@link LeaksPart.reportLeak}: the change, its mark and its audit record in one transaction. */
  readonly store: PasscodeStore
  /** Signs the leak reports' audit records (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  /** Drops a changed credential from this instance's verification caches at once. */
  readonly invalidate: (invalidation: Invalidation) => void
  /** Sends a mark's email under the claim the report took with it. */
  readonly notices: Pick<LeakNotices, 'send'>
  /** How long the report's claim on the email lasts before the notifier's pass may take it over. */
  readonly leaseMs: number
  readonly now: () => number
  readonly emit: ((event: EventInput) => void) | undefined
  /** The `leaks.action` option. */
  readonly action: 'disable' | 'revoke'
  /** The `allowReactivation` option (SPEC §5.8): an expired passcode an edit can bring back is still live. */
  readonly allowReactivation: boolean
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
   * deleted with `action: 'revoke'`), a user passcode revoked, with a leak mark and a
   * `passcode.leak_reported` audit record in the same store transaction; the account's
   * `recipients` are emailed once (a failed send is retried by the notifier's pass) and
   * a `passcode.leaked` event emitted. A second report of the same token, also at the
   * same time or from another instance, changes nothing and sends nothing.
   */
  report(tokens: readonly (string | LeakedToken)[], options: LeakReportOptions): Promise<LeakVerdict[]>
}

/** The actor a leak report's events name: the service itself, not a person (its audit record's actor is `system`). */
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

/** How many times a report acts on one token whose row a re-hash moved between its read and its act (see `report`). */
const MAX_ACT_ATTEMPTS = 3

/** Whether two matches are the same credential (an account passcode, or a user's passcode). */
const sameCredential = (a: CredentialMatch, b: CredentialMatch): boolean =>
  a.kind === b.kind &&
  a.record.accountId === b.record.accountId &&
  (a.kind === 'account' ? a.record.id === (b.record as typeof a.record).id : a.record.userId === (b.record as typeof a.record).userId)

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
 * Whether a match that is no longer live was put out of service by a leak report whose
 * mark is still open: a user passcode the report revoked (an account passcode the report
 * disabled is live still). Its value was live when found, so a replay is labelled as the
 * first report was, for both kinds; a grant or reset closes the mark and replaces the
 * value. One read of the account's open marks, only for a revoked user passcode's value.
 */
async function revokedByLeak(store: PasscodeStore, match: CredentialMatch, hash: string): Promise<boolean> {
  if (match.kind !== 'user' || match.record.revokedAt === null || match.record.hash !== hash || store.listLeakMarks === undefined) return false
  const { accountId, userId } = match.record
  const marks = await storeCall(() => store.listLeakMarks(accountId))
  return marks.some((mark) => mark.kind === 'user' && mark.key === userId)
}

/**
 * `auth.leaks.report`. Each token costs one verification read (`findUnderPeppers`: one
 * lookup, of every pepper's hash at once during a pepper change), and none when its
 * checksum fails. The response is idempotent by state, in the store: `reportLeak` acts
 * only while the credential has no open leak mark and still holds the hash that was
 * read (and a deleted or revoked value is no longer live), so a replay, or the loser of
 * two concurrent reports, acts on nothing and mails nobody. When another instance
 * re-hashed the row to the current pepper between the read and the act (SPEC §5.34),
 * the token is read once more and the report acts under the hash the row holds now.
 */
export function createLeaksApi(context: LeaksContext): LeaksApi {
  const { emit, store } = context

  /**
   * Acts on one live match, unless its credential was acted on already (an open mark) or
   * no longer holds `hash`: then nothing happens and it resolves `false`.
   */
  async function act(
    match: CredentialMatch,
    hash: string,
    where: { source: string; url: string | null },
    action: 'disable' | 'revoke',
  ): Promise<boolean> {
    const reportLeak = store.reportLeak?.bind(store)
    if (reportLeak === undefined) throw new ConfigurationError('The passcode store cannot act on leaks (no reportLeak): SPEC §5.42 needs it')
    const { accountId } = match.record
    const at = context.now()
    const kind = match.kind
    const key = kind === 'account' ? match.record.id : match.record.userId
    const storeAction: LeakReport['action'] = kind === 'user' ? 'revoke' : action === 'revoke' ? 'delete' : 'disable'
    const done: LeakMark['action'] = storeAction === 'disable' ? 'disabled' : storeAction === 'delete' ? 'deleted' : 'revoked'
    const wasEnabled = kind === 'account' && match.record.disabledAt == null
    const changes: AuditChanges = {
      source: { before: null, after: where.source },
      url: { before: null, after: where.url },
      action: { before: null, after: done },
      ...(storeAction === 'disable' && wasEnabled && { disabled: { before: false, after: true } }),
    }
    const target = kind === 'account' ? { type: 'passcode' as const, id: key, name: match.record.name } : { type: 'user' as const, id: key }
    const token = crypto.randomUUID()
    const report = {
      id: crypto.randomUUID(),
      kind,
      accountId,
      key,
      hash,
      action: storeAction,
      at,
      ...where,
      token,
      claimedUntil: at + context.leaseMs,
    }
    const mark = await storeCall(() =>
      reportLeak(report, auditEntry(context.auditSigner, 'system', accountId, at, 'passcode.leak_reported', target, changes)),
    )
    if (mark === null) return false // Acted on already (a replay, or a concurrent report that won), gone, or moved meanwhile.

    context.invalidate(
      kind === 'account' ? { type: 'account_passcode', accountId, passcodeId: key } : { type: 'user_passcode', accountId, userId: key },
    )
    const actor = LEAK_REPORT_ACTOR.userId
    if (kind === 'user') emit?.({ type: 'user_passcode.revoked', accountId, userId: key, actorUserId: actor })
    else if (storeAction === 'delete')
      emit?.({ type: 'passcode.deleted', accountId, actorUserId: actor, passcodeId: key, name: match.record.name, hint: match.record.hint })
    else if (wasEnabled)
      emit?.({ type: 'passcode.disabled', accountId, actorUserId: actor, passcodeId: key, name: match.record.name, hint: match.record.hint })

    const notified = await context.notices.send({ ...mark, token }, report.claimedUntil)
    emit?.({
      type: 'passcode.leaked',
      accountId,
      kind,
      ...(match.kind === 'account' ? { passcodeId: key, name: match.record.name, hint: match.record.hint } : { userId: key }),
      source: mark.source,
      url: mark.url,
      action: done,
      notified,
    })
    return true
  }

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
            let read = await storeCall(() => context.read(token))
            const where = typeof entry === 'string' ? { source, url } : { source: clean(entry.source) ?? source, url: clean(entry.url) ?? url }
            for (let attempt = 1; read.match !== null && isLive(read.match, read.hash, context.now(), context.allowReactivation); attempt++) {
              label = 'true_positive'
              if (await act(read.match, read.hash, where, action)) break
              // Nothing changed: acted on already, gone, or the row moved to another pepper's
              // hash between the read and the act (a re-hash by another instance, SPEC §5.34).
              // Only a move is tried again, under the hash the row holds now: a row moves once
              // per pepper change, to the current pepper and never back, so this ends (the
              // bound guards against a store that breaks that).
              if (attempt === MAX_ACT_ATTEMPTS) break
              const again = await storeCall(() => context.read(token))
              if (again.match === null || again.hash === read.hash || !sameCredential(again.match, read.match)) break
              read = again
            }
            if (label === 'false_positive' && read.match !== null && (await revokedByLeak(store, read.match, read.hash))) label = 'true_positive'
          }
          verdicts.set(token, label)
        }
        answers.push({ token, label })
      }
      return answers
    },
  }
}
