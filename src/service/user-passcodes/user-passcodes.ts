import type { Actor } from '../../core/entities'
import type { UserPasscodeRecord } from '../../core/passcode-records'
import type { UserPasscodeView } from '../../core/passcode-views'
import { AlreadyGrantedError, ForbiddenError, NotFoundError } from '../../core/errors'
import { generatePasscode, passcodeHint } from '../../core/passcode-format'
import { canManageUserPasscodes, userPasscodeExpiresAt } from '../../core/rules'
import type { LeakMark } from '../../ports/passcode-store'
import type { ManagementContext, PasscodeIssuer, RestrictionsContext } from '../context'
import { assertUserPasscodePolicy } from '../policy-checks'
import { userRestrictionFields } from '../../core/audit-fields'
import type { AccountPolicy } from '../../core/policy'
import { storeCall } from '../deadline'
import { parseInput, type GrantUserPasscodeInput } from '../input'
import { IssuedPasscode } from '../issued-passcode'
import { missingKeysError, type UserPasscodeCrypto } from './user-passcode-crypto'
import { toUserPasscodeView, type PasscodeUsage, type PendingUse, type UsageReader } from '../views'
import { auditEntry, changedFields, limitFields, userTarget } from '../audit-entry'
import { storedLimits } from '../credential-limits'

/** Management of user passcodes: `auth.userPasscodes`. */
export interface UserPasscodesApi {
  /**
   * Grants a user passcode (admins only). The admin is not shown the value (SPEC §5.13):
   * the user reveals it. Needs `encryptionKeys`. Fails with `ERR_ALREADY_GRANTED` when
   * the user holds a live one; a revoked or expired one is replaced.
   */
  grant(actor: Actor, accountId: string, userId: string, input: GrantUserPasscodeInput): Promise<UserPasscodeView>
  /** Generates a fresh value (admins only); the old one stops working at once. Validity restarts. */
  reset(actor: Actor, accountId: string, userId: string): Promise<UserPasscodeView>
  /** Revokes the user passcode (admins only); it stops working at once. */
  revoke(actor: Actor, accountId: string, userId: string): Promise<UserPasscodeView>
  /** The actor's own user passcode with its value. Only that user may reveal it. */
  reveal(actor: Actor, accountId: string): Promise<IssuedPasscode<UserPasscodeView>>
  /** The user's passcode without its value, or `null`. Any member of the account may look (SPEC §5.31). */
  get(actor: Actor, accountId: string, userId: string): Promise<UserPasscodeView | null>
  /**
   * Every user passcode of the account without values, revoked and expired ones
   * included, by user ID. Any member of the account may list (SPEC §5.31).
   */
  list(actor: Actor, accountId: string): Promise<UserPasscodeView[]>
  /**
   * The user passcode's usage over time (SPEC §5.41), as `passcodes.usage` answers it:
   * per kept UTC day, successes and matched refusals (expired, revoked, a partner it
   * may not reach), across the user's grants and resets. Any member of the account
   * may read it. `ERR_NOT_FOUND` when the user was never granted one.
   */
  usage(actor: Actor, accountId: string, userId: string): Promise<PasscodeUsage>
}

/** What `auth.userPasscodes` receives from the service. */
export interface UserPasscodesContext extends ManagementContext, RestrictionsContext {
  readonly issuer: PasscodeIssuer
  readonly expiringSoonDays: number
  /** Encrypts values at rest; `undefined` without `encryptionKeys`. */
  readonly crypto: UserPasscodeCrypto | undefined
  /** The last use of a user passcode this instance saw and has not flushed yet; `undefined` with `usage: false`. */
  readonly pendingUse: ((accountId: string, userId: string) => PendingUse | undefined) | undefined
  /** Reads a user passcode's usage over time (SPEC §5.41). */
  readonly readUsage: UsageReader
}

/** Builds `auth.userPasscodes`. */
export function createUserPasscodesApi(context: UserPasscodesContext): UserPasscodesApi {
  const { store, emit, issuer } = context
  const soonDays = context.expiringSoonDays
  /** `leak` is the user's open leak mark; a view without one passes none (a grant or a reset closes it). `balance`: its credits (SPEC §5.50). */
  const userView = (record: UserPasscodeRecord, now: number, policy: AccountPolicy, leak?: LeakMark, balance?: number) =>
    toUserPasscodeView(record, now, soonDays, {
      pending: context.pendingUse?.(record.accountId, record.userId),
      leak,
      balance,
      declaredScopes: context.scopes.names,
      policy,
    })
  const policyOf = (accountId: string) => storeCall(() => context.policyOf(accountId))
  /** The store's credit balances (SPEC §5.50) of the account's user passcodes, by user id: one read, none when no record has credits. */
  const creditBalances = async (accountId: string, records: readonly UserPasscodeRecord[], now: number): Promise<Map<string, number>> => {
    const byUser = new Map<string, number>()
    if (store.listCreditBalances === undefined || !records.some((record) => record.credits != null)) return byUser
    for (const { kind, key, balance } of await storeCall(() => store.listCreditBalances(accountId, now)))
      if (kind === 'user') byUser.set(key, balance)
    return byUser
  }
  /**
   * The open leak marks (SPEC §5.42) of the account's user passcodes, by user id: one read.
   * Only get and list read them: a leak revokes the passcode, and only a grant or a reset
   * (which close the mark) make it live again, so a passcode revoke or reveal acts on has none.
   */
  const openLeaks = async (accountId: string): Promise<Map<string, LeakMark>> => {
    const byUser = new Map<string, LeakMark>()
    if (store.listLeakMarks === undefined) return byUser
    for (const mark of await storeCall(() => store.listLeakMarks(accountId))) if (mark.kind === 'user') byUser.set(mark.key, mark)
    return byUser
  }

  /** The view with the store's live balance (a reset or revoke keeps the credits' epoch). */
  const liveView = async (record: UserPasscodeRecord, now: number, policy: AccountPolicy) =>
    userView(record, now, policy, undefined, (await creditBalances(record.accountId, [record], now)).get(record.userId))

  const adminOnly = (actor: unknown): Actor => {
    const checked = parseInput('actor', 'actor', actor)
    if (!canManageUserPasscodes(checked)) throw new ForbiddenError('Only admins grant, reset or revoke user passcodes')
    return checked
  }
  const encryption = () => {
    if (context.crypto === undefined) throw missingKeysError()
    return context.crypto
  }
  const ids = (accountId: unknown, userId: unknown) => ({
    accountId: parseInput('accountId', 'accountId', accountId),
    userId: parseInput('userId', 'userId', userId),
  })
  const freshValue = async (owner: { accountId: string; userId: string }) => {
    const value = generatePasscode({ prefix: issuer.prefix })
    return {
      hash: issuer.hash(value),
      pepperId: issuer.pepperId,
      hint: passcodeHint(value),
      ciphertext: await encryption().encrypt(value, owner),
    }
  }
  const notFound = () => new NotFoundError('The user has no active user passcode')

  return {
    async grant(actor, accountId, userId, input) {
      const who = adminOnly(actor)
      const owner = ids(accountId, userId)
      const { validity, scopes = null, allowedAddresses = [], ...asked } = parseInput('grant', '', input)
      context.scopes.assertDeclared(scopes, 'scopes')
      encryption()
      const now = context.now()
      const policy = await policyOf(owner.accountId)
      assertUserPasscodePolicy(policy, validity, now)
      const expiresAt = userPasscodeExpiresAt(now, validity)
      const { rateLimit = null, credits = null } = storedLimits(asked, now, store)
      const restrictions = { scopes, allowedAddresses }
      const audit = auditEntry(context.auditSigner, who, owner.accountId, now, 'user_passcode.granted', userTarget(owner.userId), {
        validity: { before: null, after: validity.type === 'finite' ? `${validity.days} days` : 'infinite' },
        expiresAt: { before: null, after: expiresAt },
        ...Object.fromEntries(Object.entries(userRestrictionFields(restrictions)).map(([field, after]) => [field, { before: null, after }])),
        ...changedFields(null, limitFields({ rateLimit, credits })),
      })
      const result = await storeCall(async () =>
        store.grantUserPasscode(
          {
            ...owner,
            ...(await freshValue(owner)),
            validity,
            grantedAt: now,
            expiresAt,
            revokedAt: null,
            lastUsedAt: null,
            lastUsedPartner: null,
            ...restrictions,
            rateLimit,
            credits,
          },
          now,
          audit,
        ),
      )
      if (!result.ok) throw new AlreadyGrantedError()
      context.invalidate({ type: 'user_passcode', ...owner })
      emit?.({ type: 'user_passcode.granted', ...owner, actorUserId: who.userId })
      return userView(result.record, now, policy)
    },

    async reset(actor, accountId, userId) {
      const who = adminOnly(actor)
      const owner = ids(accountId, userId)
      encryption()
      const now = context.now()
      const current = await storeCall(() => store.getUserPasscode(owner.accountId, owner.userId))
      if (current?.revokedAt !== null) throw notFound()
      // SPEC §5.52: the validity a reset keeps restarts now, so it meets the policy now.
      const policy = await policyOf(owner.accountId)
      assertUserPasscodePolicy(policy, current.validity, now, true)
      const fresh = await freshValue(owner)
      const expiresAt = userPasscodeExpiresAt(now, current.validity)
      const audit = auditEntry(context.auditSigner, who, owner.accountId, now, 'user_passcode.reset', userTarget(owner.userId), {
        expiresAt: { before: current.expiresAt, after: expiresAt },
      })
      const record = await storeCall(() => store.resetUserPasscode(owner.accountId, owner.userId, { ...fresh, grantedAt: now, expiresAt }, audit))
      if (record === null) throw notFound()
      context.invalidate({ type: 'user_passcode', ...owner })
      emit?.({ type: 'user_passcode.reset', ...owner, actorUserId: who.userId })
      return liveView(record, now, policy)
    },

    async revoke(actor, accountId, userId) {
      const who = adminOnly(actor)
      const owner = ids(accountId, userId)
      const now = context.now()
      const audit = auditEntry(context.auditSigner, who, owner.accountId, now, 'user_passcode.revoked', userTarget(owner.userId), {
        revokedAt: { before: null, after: now },
      })
      const record = await storeCall(() => store.revokeUserPasscode(owner.accountId, owner.userId, now, audit))
      if (record === null) throw notFound()
      context.invalidate({ type: 'user_passcode', ...owner })
      emit?.({ type: 'user_passcode.revoked', ...owner, actorUserId: who.userId })
      return liveView(record, now, await policyOf(owner.accountId))
    },

    async reveal(actor, accountId) {
      const who = parseInput('actor', 'actor', actor)
      // Reveal always reads the actor's own passcode: no user ID is taken, so nobody else's can be asked for.
      const owner = ids(accountId, who.userId)
      const crypto = encryption()
      const record = await storeCall(() => store.getUserPasscode(owner.accountId, owner.userId))
      if (record?.revokedAt !== null) throw notFound()
      const value = await crypto.decrypt(record.ciphertext, owner)
      // Recorded before the value is handed out: a reveal the trail cannot hold does not happen.
      const log = store.audit
      if (log !== undefined)
        await storeCall(() =>
          log.append(auditEntry(context.auditSigner, who, owner.accountId, context.now(), 'user_passcode.revealed', userTarget(owner.userId))),
        )
      emit?.({ type: 'user_passcode.revealed', ...owner, actorUserId: who.userId })
      return new IssuedPasscode(await liveView(record, context.now(), await policyOf(owner.accountId)), value)
    },

    async get(actor, accountId, userId) {
      parseInput('actor', 'actor', actor)
      const owner = ids(accountId, userId)
      const record = await storeCall(() => store.getUserPasscode(owner.accountId, owner.userId))
      if (record === null) return null
      const leak = record.revokedAt === null ? undefined : (await openLeaks(owner.accountId)).get(owner.userId)
      const now = context.now()
      return userView(record, now, await policyOf(owner.accountId), leak, (await creditBalances(owner.accountId, [record], now)).get(owner.userId))
    },

    async list(actor, accountId) {
      parseInput('actor', 'actor', actor)
      const account = parseInput('accountId', 'accountId', accountId)
      const records = await storeCall(() => store.listUserPasscodes(account))
      const leaks = records.some((record) => record.revokedAt !== null) ? await openLeaks(account) : new Map<string, LeakMark>()
      const now = context.now()
      const policy = await policyOf(account)
      const balances = await creditBalances(account, records, now)
      return records.map((record) => userView(record, now, policy, leaks.get(record.userId), balances.get(record.userId)))
    },

    async usage(actor, accountId, userId) {
      parseInput('actor', 'actor', actor)
      const owner = ids(accountId, userId)
      const record = await storeCall(() => store.getUserPasscode(owner.accountId, owner.userId))
      if (record === null) throw new NotFoundError('The user has no user passcode')
      return context.readUsage('user', owner.accountId, owner.userId)
    },
  }
}
