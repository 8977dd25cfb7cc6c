import type { Actor, PasscodeView } from '../../core/entities'
import { CapReachedError, DuplicateNameError, ForbiddenError, NotFoundError, ReactivationRefusedError } from '../../core/errors'
import { generatePasscode, passcodeHint } from '../../core/passcode-format'
import { accountPasscodeExpiresAt, canManageAccountPasscodes, passcodeNameKey } from '../../core/rules'
import { passcodeStatus } from '../../core/status'
import type { ServiceContext } from '../context'
import { storeCall } from '../deadline'
import { parseInput, type CreatePasscodeInput, type UpdatePasscodeInput } from '../input'
import { IssuedPasscode } from '../issued-passcode'
import { toPasscodeView } from '../views'

/** Management of account passcodes: `auth.passcodes`. */
export interface PasscodesApi {
  /**
   * Creates a passcode and returns its value once. Admins, or members with write access
   * to User Settings. Fails with `ERR_CAP_REACHED` at 100 passcodes and
   * `ERR_DUPLICATE_NAME` for a name already used in the account (case-insensitive).
   */
  create(actor: Actor, accountId: string, input: CreatePasscodeInput): Promise<IssuedPasscode<PasscodeView>>
  /**
   * Renames a passcode and/or gives it a new expiry counted from now (which re-arms both
   * notifications). An expired passcode keeps its expiry unless `allowReactivation`.
   */
  update(actor: Actor, accountId: string, passcodeId: string, patch: UpdatePasscodeInput): Promise<PasscodeView>
  /** Deletes a passcode; calls with it fail at once. */
  delete(actor: Actor, accountId: string, passcodeId: string): Promise<void>
  /** Every passcode of the account with its current status, expired ones included. */
  list(actor: Actor, accountId: string): Promise<PasscodeView[]>
}

function authorize(actor: unknown): Actor {
  const checked = parseInput('actor', 'actor', actor)
  if (!canManageAccountPasscodes(checked)) {
    throw new ForbiddenError('Only admins or users with write access to User Settings manage passcodes')
  }
  return checked
}

/** Builds `auth.passcodes` over a service context. */
export function createPasscodesApi(context: ServiceContext): PasscodesApi {
  const { store, options, emit } = context
  const soonDays = options.limits.expiringSoonDays
  const view = (record: Parameters<typeof toPasscodeView>[0]) => toPasscodeView(record, context.now(), soonDays)

  return {
    async create(actor, accountId, input) {
      const who = authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { name, expiry } = parseInput('create', '', input)
      const value = generatePasscode({ prefix: options.prefix })
      const now = context.now()
      const hint = passcodeHint(value)
      const result = await storeCall(() =>
        store.createAccountPasscode(
          {
            id: crypto.randomUUID(),
            accountId: account,
            name,
            nameKey: passcodeNameKey(name),
            hash: context.hash(value),
            hint,
            expiry,
            createdAt: now,
            updatedAt: now,
            expiresAt: accountPasscodeExpiresAt(now, expiry),
            partners: null,
            previousHash: null,
            previousHashEndsAt: null,
            lastUsedAt: null,
            lastUsedPartner: null,
          },
          options.limits.maxAccountPasscodes,
        ),
      )
      if (!result.ok) {
        throw result.reason === 'cap_reached' ? new CapReachedError(options.limits.maxAccountPasscodes) : new DuplicateNameError(name)
      }
      const { record } = result
      emit?.({ type: 'passcode.created', accountId: account, actorUserId: who.userId, passcodeId: record.id, name, hint })
      return new IssuedPasscode(view(record), value)
    },

    async update(actor, accountId, passcodeId, patch) {
      const who = authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const id = parseInput('passcodeId', 'passcodeId', passcodeId)
      const changes = parseInput('update', '', patch)
      const now = context.now()
      const current = await storeCall(() => store.getAccountPasscode(account, id))
      if (current === null) throw new NotFoundError('No such passcode in this account')
      if (
        changes.expiry !== undefined &&
        !options.allowReactivation &&
        passcodeStatus(current, now, soonDays) === 'expired'
      ) {
        throw new ReactivationRefusedError()
      }
      const result = await storeCall(() =>
        store.updateAccountPasscode(account, id, {
          ...(changes.name !== undefined && { name: changes.name, nameKey: passcodeNameKey(changes.name) }),
          ...(changes.expiry !== undefined && {
            expiry: changes.expiry,
            expiresAt: accountPasscodeExpiresAt(now, changes.expiry),
          }),
          updatedAt: now,
        }),
      )
      if (!result.ok) {
        throw result.reason === 'not_found' ? new NotFoundError('No such passcode in this account') : new DuplicateNameError(changes.name ?? current.name)
      }
      context.invalidate({ type: 'account_passcode', accountId: account, passcodeId: id })
      const changed = [
        ...(changes.name !== undefined ? (['name'] as const) : []),
        ...(changes.expiry !== undefined ? (['expiry'] as const) : []),
      ]
      emit?.({
        type: 'passcode.updated',
        accountId: account,
        actorUserId: who.userId,
        passcodeId: id,
        name: result.record.name,
        hint: result.record.hint,
        changed,
      })
      return view(result.record)
    },

    async delete(actor, accountId, passcodeId) {
      const who = authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const id = parseInput('passcodeId', 'passcodeId', passcodeId)
      const deleted = await storeCall(() => store.deleteAccountPasscode(account, id))
      if (deleted === null) throw new NotFoundError('No such passcode in this account')
      context.invalidate({ type: 'account_passcode', accountId: account, passcodeId: id })
      emit?.({
        type: 'passcode.deleted',
        accountId: account,
        actorUserId: who.userId,
        passcodeId: id,
        name: deleted.name,
        hint: deleted.hint,
      })
    },

    async list(actor, accountId) {
      authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const records = await storeCall(() => store.listAccountPasscodes(account))
      const now = context.now()
      return records.map((record) => toPasscodeView(record, now, soonDays))
    },
  }
}
