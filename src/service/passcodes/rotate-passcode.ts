import type { Actor } from '../../core/entities'
import type { PasscodeView } from '../../core/passcode-views'
import { InvalidInputError, NotFoundError, RotationRefusedError } from '../../core/errors'
import { generatePasscode, passcodeHint } from '../../core/passcode-format'
import { ROTATION_OVERLAP_MINUTES } from '../../core/rules'
import { isExpired } from '../../core/status'
import { LEAKED_OVERLAP_REFUSAL } from '../../core/labels'
import { storeCall } from '../deadline'
import { parseInput, type RotatePasscodeInput } from '../input'
import { IssuedPasscode } from '../issued-passcode'
import { auditEntry, passcodeTarget } from '../audit-entry'
import { authorizeManager } from './authorize'
import { openLeakOf, passcodeView } from './passcode-views'
import type { PasscodesContext } from './passcodes-context'

const MINUTE_MS = 60_000

/** The refusal of a rotation without `overlapMinutes`, in the words of the schema's own (input.ts). */
const OVERLAP_REQUIRED = `must be a whole number of minutes (${ROTATION_OVERLAP_MINUTES.min} to ${ROTATION_OVERLAP_MINUTES.max})`

/**
 * `auth.passcodes.rotate` (SPEC §5.26): a new value for the same passcode (id, name,
 * expiry, binding and notifications unchanged), shown once. The replaced value keeps
 * working for `overlapMinutes`, then stops on every instance: its cache entries are
 * dropped now (here and, through the store's invalidation, elsewhere), and a lookup
 * after that caches it only until the overlap ends. Rotating again during an overlap
 * ends the older one: the store keeps one previous value. An expired passcode is
 * refused (the new value would be expired too): give it a new expiry first. A disabled
 * passcode may be rotated and stays disabled, new value included, until enabled.
 *
 * Leaked means gone (SPEC §5.45): a passcode whose value was found in public (an open
 * leak mark, or `valueLeaked`: an admin enabled the reported value since) gets no
 * overlap: without `overlapMinutes` it is 0, and any other number is refused with a
 * validation error that says why. The store keeps no previous value for such a passcode
 * either, so a leak reported while this rotation runs still leaves the leaked value no
 * overlap. The rotation closes the mark, and the new value is not leaked.
 */
export function createRotatePasscode(
  context: PasscodesContext,
): (actor: Actor, accountId: string, passcodeId: string, input: RotatePasscodeInput) => Promise<IssuedPasscode<PasscodeView>> {
  const { store, emit, issuer } = context
  return async function rotate(actor, accountId, passcodeId, input) {
    const who = authorizeManager(actor)
    const account = parseInput('accountId', 'accountId', accountId)
    const id = parseInput('passcodeId', 'passcodeId', passcodeId)
    const asked = parseInput('rotate', '', input).overlapMinutes
    const now = context.now()
    const current = await storeCall(() => store.getAccountPasscode(account, id))
    if (current === null) throw new NotFoundError('No such passcode in this account')
    if (isExpired(current, now)) throw new RotationRefusedError()
    // Reported leaked: an open mark, or a value enabled since, still the one reported.
    const leaked = (await openLeakOf(context, current)) !== undefined || current.valueLeaked === true
    if (leaked && asked !== undefined && asked !== 0) throw new InvalidInputError('overlapMinutes', LEAKED_OVERLAP_REFUSAL)
    if (!leaked && asked === undefined) throw new InvalidInputError('overlapMinutes', OVERLAP_REQUIRED)
    const overlapMinutes = asked ?? 0

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
    // As stored: a leak reported meanwhile leaves no overlap (see above).
    const endsAt = rotated.previousHashEndsAt
    emit?.({
      type: 'passcode.rotated',
      accountId: account,
      actorUserId: who.userId,
      passcodeId: id,
      name: rotated.name,
      hint: rotated.hint,
      previousHint: current.hint,
      overlapMinutes: endsAt === null ? 0 : overlapMinutes,
      previousValueEndsAt: endsAt === null ? null : new Date(endsAt),
    })
    // A rotation closes the leak mark: the leaked value is over.
    return new IssuedPasscode(await passcodeView(context, rotated, { leaked: false }), value)
  }
}
