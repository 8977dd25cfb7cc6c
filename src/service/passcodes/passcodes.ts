import type { Actor } from '../../core/entities'
import type { PasscodeView } from '../../core/passcode-views'
import { CapReachedError, DuplicateNameError, NotFoundError, ReactivationRefusedError } from '../../core/errors'
import { generatePasscode, passcodeHint } from '../../core/passcode-format'
import { accountPasscodeExpiresAt, passcodeNameKey } from '../../core/rules'
import { isExpired } from '../../core/status'
import { storeCall } from '../deadline'
import { parseInput, type CreatePasscodeInput, type ListPasscodesOptions, type RotatePasscodeInput, type UpdatePasscodeInput } from '../input'
import { IssuedPasscode } from '../issued-passcode'
import { auditEntry, changedFields, limitFields, passcodeFields, passcodeTarget } from '../audit-entry'
import { storedLimits } from '../credential-limits'
import type { PasscodeUsage } from '../views'
import type { PasscodesContext } from './passcodes-context'
import { authorizeManager as authorize } from './authorize'
import { checkedBinding } from './partner-binding'
import { filterViews, passcodeView, passcodeViews, sortViews } from './passcode-views'
import { assertAccountPasscodePolicy } from '../policy-checks'
import { createRotatePasscode } from './rotate-passcode'
import { createSetDisabled } from './set-disabled'

/**
 * The fields of an account passcode that create and edit store as given (after their
 * checks in `../input`): a new field of this kind is one entry here and one in
 * {@link COPIED_DEFAULTS}, its value when a create leaves it out.
 */
const COPIED_FIELDS = ['description', 'scopes', 'allowedAddresses', 'metadata', 'tags'] as const

/** What a create stores for a copied field it leaves out: no description, every scope, any address, no metadata, no tags. */
const COPIED_DEFAULTS = { description: '', scopes: null, allowedAddresses: [], metadata: null, tags: [] } satisfies {
  readonly [field in (typeof COPIED_FIELDS)[number]]-?: Exclude<CreatePasscodeInput[field], undefined>
}

/** Every field an edit may change, in the order `passcode.updated` names them. */
const UPDATED_FIELDS = [
  'name',
  'expiry',
  'partners',
  ...COPIED_FIELDS,
  'rateLimit',
  'credits',
] as const satisfies readonly (keyof UpdatePasscodeInput)[]

/** The `fields` of `input` that it gives (neither absent nor `undefined`). */
function definedOf<T extends object, K extends keyof T>(input: T, fields: readonly K[]): { [field in K]?: Exclude<T[field], undefined> } {
  const given: { [field in K]?: Exclude<T[field], undefined> } = {}
  for (const field of fields) if (input[field] !== undefined) given[field] = input[field] as Exclude<T[K], undefined>
  return given
}

/** Management of account passcodes: `auth.passcodes`. */
export interface PasscodesApi {
  /**
   * Creates a passcode and returns its value once. Admins, or members with write access
   * to User Settings. Fails with `ERR_CAP_REACHED` at 100 passcodes and
   * `ERR_DUPLICATE_NAME` for a name already used in the account (case-insensitive).
   */
  create(actor: Actor, accountId: string, input: CreatePasscodeInput): Promise<IssuedPasscode<PasscodeView>>
  /**
   * Renames a passcode, gives it a new expiry counted from now (which re-arms both
   * notifications), a new partner binding or a new description (`''` or `null` removes
   * it). An expired passcode keeps its expiry unless `allowReactivation`.
   */
  update(actor: Actor, accountId: string, passcodeId: string, patch: UpdatePasscodeInput): Promise<PasscodeView>
  /**
   * Issues a new value for the same passcode (id, name, expiry, binding kept) and
   * returns it once; the replaced value keeps working for `overlapMinutes` (0 to
   * 10 080), then stops on every instance. Fails with `ERR_ROTATION_REFUSED` for an
   * expired passcode. A passcode found in public (`leak` on its view) gets no overlap
   * (SPEC §5.45): `overlapMinutes` defaults to 0 there and any other number is refused.
   */
  rotate(actor: Actor, accountId: string, passcodeId: string, input: RotatePasscodeInput): Promise<IssuedPasscode<PasscodeView>>
  /**
   * Disables a passcode without deleting it (SPEC §5.38): calls with it fail at once on
   * every instance with the 400 of an unknown passcode, it is listed as `disabled`, gets
   * no emails and keeps its value, name, binding, expiry and place under the cap. Whoever
   * may edit it may disable it. Disabling a disabled passcode changes nothing and
   * succeeds (the state asked for holds), so a retry is safe.
   */
  disable(actor: Actor, accountId: string, passcodeId: string): Promise<PasscodeView>
  /**
   * Enables a disabled passcode: it works again at once on every instance (unless it
   * expired meanwhile). Enabling an enabled passcode changes nothing and succeeds.
   */
  enable(actor: Actor, accountId: string, passcodeId: string): Promise<PasscodeView>
  /** Deletes a passcode; calls with it (and with a value it replaced during an overlap) fail at once. */
  delete(actor: Actor, accountId: string, passcodeId: string): Promise<void>
  /**
   * Every passcode of the account with its current status, binding and last use,
   * expired ones included; `sortBy: 'lastUsedAt'` puts unused ones first. Any member
   * of the account may list (SPEC §5.31): views never carry a value.
   */
  list(actor: Actor, accountId: string, options?: ListPasscodesOptions): Promise<PasscodeView[]>
  /**
   * The passcode's usage over time (SPEC §5.41): per UTC day of the kept ones
   * (`usage.retentionDays`, 90), its successes and the refusals that matched it, and
   * `/v1/connect` per partner, as of each instance's last usage flush. Any member of
   * the account may read it, as for `list`: it holds no value. `ERR_NOT_FOUND` for a
   * passcode not in the account (a deleted one's days are gone with it).
   */
  usage(actor: Actor, accountId: string, passcodeId: string): Promise<PasscodeUsage>
}

/** Builds `auth.passcodes`. */
export function createPasscodesApi(context: PasscodesContext): PasscodesApi {
  const { store, emit, issuer, limits } = context

  return {
    async create(actor, accountId, input) {
      const who = authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { name, expiry, partners, ...asked } = parseInput('create', '', input)
      const copied = { ...COPIED_DEFAULTS, ...definedOf(asked, COPIED_FIELDS) }
      const { description, scopes } = copied
      context.scopes.assertDeclared(scopes, 'scopes')
      assertAccountPasscodePolicy(await storeCall(() => context.policyOf(account)), { expiry, description })
      const binding = await checkedBinding(context.partners, partners ?? null)
      const value = generatePasscode({ prefix: issuer.prefix })
      const now = context.now()
      const hint = passcodeHint(value)
      const id = crypto.randomUUID()
      const { rateLimit = null, credits = null } = storedLimits(asked, now, store)
      const fields = { name, expiry, expiresAt: accountPasscodeExpiresAt(now, expiry), partners: binding, ...copied }
      const audit = auditEntry(
        context.auditSigner,
        who,
        account,
        now,
        'passcode.created',
        passcodeTarget({ id, name }),
        changedFields(null, { ...passcodeFields(fields), ...limitFields({ rateLimit, credits }) }),
      )
      const result = await storeCall(() =>
        store.createAccountPasscode(
          {
            id,
            accountId: account,
            name,
            nameKey: passcodeNameKey(name),
            hash: issuer.hash(value),
            pepperId: issuer.pepperId,
            hint,
            expiry,
            createdAt: now,
            updatedAt: now,
            expiresAt: accountPasscodeExpiresAt(now, expiry),
            partners: binding,
            previousHash: null,
            previousHashEndsAt: null,
            lastUsedAt: null,
            lastUsedPartner: null,
            disabledAt: null,
            ...copied,
            rateLimit,
            credits,
          },
          limits.maxAccountPasscodes,
          audit,
        ),
      )
      if (!result.ok) {
        throw result.reason === 'cap_reached' ? new CapReachedError(limits.maxAccountPasscodes) : new DuplicateNameError(name)
      }
      const { record } = result
      emit?.({ type: 'passcode.created', accountId: account, actorUserId: who.userId, passcodeId: record.id, name, hint })
      return new IssuedPasscode(await passcodeView(context, record, { leaked: false }), value)
    },

    async update(actor, accountId, passcodeId, patch) {
      const who = authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const id = parseInput('passcodeId', 'passcodeId', passcodeId)
      const changes = parseInput('update', '', patch)
      context.scopes.assertDeclared(changes.scopes, 'scopes')
      const binding = changes.partners === undefined ? undefined : await checkedBinding(context.partners, changes.partners)
      const now = context.now()
      const newLimits = storedLimits(changes, now, store)
      const current = await storeCall(() => store.getAccountPasscode(account, id))
      if (current === null) throw new NotFoundError('No such passcode in this account')
      if (changes.expiry !== undefined || changes.description !== undefined) {
        // SPEC §5.52: only the rules of what the edit changes (a passcode made before the policy may still be renamed).
        const after = { expiry: changes.expiry ?? current.expiry, description: changes.description ?? current.description }
        const changed = { expiry: changes.expiry !== undefined, description: changes.description !== undefined }
        assertAccountPasscodePolicy(await storeCall(() => context.policyOf(account)), after, changed)
      }
      if (changes.expiry !== undefined && !context.allowReactivation && isExpired(current, now)) {
        throw new ReactivationRefusedError()
      }
      const edit = {
        ...(changes.name !== undefined && { name: changes.name, nameKey: passcodeNameKey(changes.name) }),
        ...(changes.expiry !== undefined && {
          expiry: changes.expiry,
          expiresAt: accountPasscodeExpiresAt(now, changes.expiry),
        }),
        ...(binding !== undefined && { partners: binding }),
        ...definedOf(changes, COPIED_FIELDS),
        ...newLimits,
        updatedAt: now,
      }
      const shown = (record: typeof current) => ({ ...passcodeFields(record), ...limitFields(record) })
      const edited = changedFields(shown(current), shown({ ...current, ...edit }))
      // A change of the binding alone is the "partner change" of SPEC §5.40.
      const { partners: _partners, ...others } = changes
      const bindingOnly = binding !== undefined && Object.values(others as Record<string, unknown>).every((value) => value === undefined)
      const action = bindingOnly ? 'passcode.partners_changed' : 'passcode.updated'
      const audit = auditEntry(context.auditSigner, who, account, now, action, passcodeTarget({ id, name: edit.name ?? current.name }), edited)
      const result = await storeCall(() => store.updateAccountPasscode(account, id, edit, audit))
      if (!result.ok) {
        throw result.reason === 'not_found'
          ? new NotFoundError('No such passcode in this account')
          : new DuplicateNameError(changes.name ?? current.name)
      }
      context.invalidate({ type: 'account_passcode', accountId: account, passcodeId: id })
      const changed = UPDATED_FIELDS.filter((field) => changes[field] !== undefined)
      emit?.({
        type: 'passcode.updated',
        accountId: account,
        actorUserId: who.userId,
        passcodeId: id,
        name: result.record.name,
        hint: result.record.hint,
        changed,
      })
      return passcodeView(context, result.record)
    },

    rotate: createRotatePasscode(context),
    disable: createSetDisabled(context, true),
    enable: createSetDisabled(context, false),

    async delete(actor, accountId, passcodeId) {
      const who = authorize(actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const id = parseInput('passcodeId', 'passcodeId', passcodeId)
      // Read first for the record's name and fields; a concurrent delete then finds nothing.
      const current = await storeCall(() => store.getAccountPasscode(account, id))
      if (current === null) throw new NotFoundError('No such passcode in this account')
      const audit = auditEntry(
        context.auditSigner,
        who,
        account,
        context.now(),
        'passcode.deleted',
        passcodeTarget(current),
        changedFields({ ...passcodeFields(current), ...limitFields(current) }, null),
      )
      const deleted = await storeCall(() => store.deleteAccountPasscode(account, id, audit))
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

    async list(actor, accountId, listOptions) {
      parseInput('actor', 'actor', actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const { sortBy = 'createdAt', tags, search } = parseInput('list', 'options', listOptions) ?? {}
      const records = await storeCall(() => store.listAccountPasscodes(account))
      return sortViews(filterViews(await passcodeViews(context, records), tags, search), sortBy)
    },

    async usage(actor, accountId, passcodeId) {
      parseInput('actor', 'actor', actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const id = parseInput('passcodeId', 'passcodeId', passcodeId)
      const record = await storeCall(() => store.getAccountPasscode(account, id))
      if (record === null) throw new NotFoundError('No such passcode in this account')
      return context.readUsage('account', account, id)
    },
  }
}
