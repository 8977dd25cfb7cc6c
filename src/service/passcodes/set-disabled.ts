import type { Actor } from '../../core/entities'
import type { PasscodeView } from '../../core/passcode-views'
import { ConfigurationError, NotFoundError } from '../../core/errors'
import type { PasscodesContext } from './passcodes-context'
import { auditEntry, passcodeTarget } from '../audit-entry'
import { storeCall } from '../deadline'
import { parseInput } from '../input'
import { authorizeManager } from './authorize'
import { passcodeView } from './passcode-views'

/**
 * `auth.passcodes.disable` (`disabled: true`) and `enable` (SPEC §5.38). The state is
 * one field of the record, written through the store's edit, so it reaches every
 * instance as an edit does: the store publishes the invalidation (delete's), and this
 * instance drops its own cache entries at once. Verification refuses a disabled
 * passcode with the 400 of an unknown one (`authenticate`'s owner refusals). Asking for
 * the state the passcode is already in writes nothing, emits nothing and answers the
 * view: the caller wanted that state and has it, so retries and scripts need no
 * special case (a 409 would make "disable it" fail exactly when it holds). A change
 * writes one audit record (SPEC §5.40) with it, in the store's transaction; a no-op none.
 */
export function createSetDisabled(
  context: PasscodesContext,
  disabled: boolean,
): (actor: Actor, accountId: string, passcodeId: string) => Promise<PasscodeView> {
  const { store, emit } = context
  return async function setDisabled(actor, accountId, passcodeId) {
    const who = authorizeManager(actor)
    const account = parseInput('accountId', 'accountId', accountId)
    const id = parseInput('passcodeId', 'passcodeId', passcodeId)
    const current = await storeCall(() => store.getAccountPasscode(account, id))
    if (current === null) throw new NotFoundError('No such passcode in this account')
    if ((current.disabledAt != null) === disabled) return passcodeView(context, current)

    const now = context.now()
    const audit = auditEntry(context.auditSigner, who, account, now, disabled ? 'passcode.disabled' : 'passcode.enabled', passcodeTarget(current), {
      disabled: { before: !disabled, after: disabled },
    })
    const result = await storeCall(() => store.updateAccountPasscode(account, id, { disabledAt: disabled ? now : null, updatedAt: now }, audit))
    if (!result.ok) throw new NotFoundError('No such passcode in this account')
    context.invalidate({ type: 'account_passcode', accountId: account, passcodeId: id })
    // A store written before SPEC §5.38 would drop the field and leave the passcode working.
    if ((result.record.disabledAt != null) !== disabled) {
      throw new ConfigurationError('The passcode store did not keep the disabled state: it needs disabledAt support (SPEC §5.38)')
    }
    emit?.({
      type: disabled ? 'passcode.disabled' : 'passcode.enabled',
      accountId: account,
      actorUserId: who.userId,
      passcodeId: id,
      name: result.record.name,
      hint: result.record.hint,
    })
    // An enable closes the leak mark (SPEC §5.42): the admin acted.
    return passcodeView(context, result.record, disabled ? undefined : { leaked: false })
  }
}
