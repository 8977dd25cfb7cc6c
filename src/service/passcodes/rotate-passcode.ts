import type { Actor, PasscodeView } from '../../core/entities'
import { NotFoundError, RotationRefusedError } from '../../core/errors'
import { generatePasscode, passcodeHint } from '../../core/passcode-format'
import { isExpired } from '../../core/status'
import { storeCall } from '../deadline'
import { parseInput, type RotatePasscodeInput } from '../input'
import { IssuedPasscode } from '../issued-passcode'
import { auditEntry, passcodeTarget } from '../audit-entry'
import { authorizeManager } from './authorize'
import { passcodeView } from './passcode-views'
import type { PasscodesContext } from './passcodes-context'

const MINUTE_MS = 60_000

/**
 * `auth.passcodes.rotate` (SPEC §5.26): a new value for the same passcode (id, name,
 * expiry, binding and notifications unchanged), shown once. The replaced value keeps
 * working for `overlapMinutes`, then stops on every instance: its cache entries are
 * dropped now (here and, through the store's invalidation, elsewhere), and a lookup
 * after that caches it only until the overlap ends. Rotating again during an overlap
 * ends the older one: the store keeps one previous value. An expired passcode is
 * refused (the new value would be expired too): give it a new expiry first. A disabled
 * passcode may be rotated and stays disabled, new value included, until enabled.
 */
export function createRotatePasscode(
  context: PasscodesContext,
): (actor: Actor, accountId: string, passcodeId: string, input: RotatePasscodeInput) => Promise<IssuedPasscode<PasscodeView>> {
  const { store, emit, issuer } = context
  return async function rotate(actor, accountId, passcodeId, input) {
    const who = authorizeManager(actor)
    const account = parseInput('accountId', 'accountId', accountId)
    const id = parseInput('passcodeId', 'passcodeId', passcodeId)
    const { overlapMinutes } = parseInput('rotate', '', input)
    const now = context.now()
    const current = await storeCall(() => store.getAccountPasscode(account, id))
    if (current === null) throw new NotFoundError('No such passcode in this account')
    if (isExpired(current, now)) throw new RotationRefusedError()

    const value = generatePasscode({ prefix: issuer.prefix })
    const previousHashEndsAt = overlapMinutes === 0 ? null : now + overlapMinutes * MINUTE_MS
    // The replaced value's end is what a rotation changes that a record may show.
    const audit = auditEntry(context.auditSigner, who, account, now, 'passcode.rotated', passcodeTarget(current), {
      previousValueEndsAt: { before: current.previousHashEndsAt, after: previousHashEndsAt },
    })
    const rotated = await storeCall(() =>
      store.rotateAccountPasscode(
        account,
        id,
        { hash: issuer.hash(value), pepperId: issuer.pepperId, hint: passcodeHint(value), previousHashEndsAt, updatedAt: now },
        audit,
      ),
    )
    if (rotated === null) throw new NotFoundError('No such passcode in this account')
    context.invalidate({ type: 'account_passcode', accountId: account, passcodeId: id })
    emit?.({
      type: 'passcode.rotated',
      accountId: account,
      actorUserId: who.userId,
      passcodeId: id,
      name: rotated.name,
      hint: rotated.hint,
      previousHint: current.hint,
      overlapMinutes,
      previousValueEndsAt: previousHashEndsAt === null ? null : new Date(previousHashEndsAt),
    })
    // A rotation closes the leak mark: the leaked value is over.
    return new IssuedPasscode(await passcodeView(context, rotated, { leaked: false }), value)
  }
}
