import type { Actor } from '../../core/entities'
import { ConfigurationError, ForbiddenError } from '../../core/errors'
import { policyFields } from '../../core/audit-fields'
import { accountPasscodeViolations, userPasscodeViolations, type AccountPolicy } from '../../core/policy'
import { canManageUserPasscodes } from '../../core/rules'
import { isExpired } from '../../core/status'
import { auditEntry, changedFields } from '../audit-entry'
import type { ManagementContext } from '../context'
import { storeCall } from '../deadline'
import { parseInput, type AccountPolicyInput } from '../input'
import type { PolicyReader } from '../policy-checks'
import type { PolicyNotices } from './policy-notices'

/**
 * An account's policy as `auth.accounts.getPolicy` answers it (SPEC §5.52): its rules
 * and where they come from.
 *
 * @example
 * ```ts
 * const { maxLifetimeDays, source } = await auth.accounts.getPolicy('acc_1')
 * ```
 */
export interface AccountPolicyView extends AccountPolicy {
  /** `account`: its admins set it; `default`: the host's `policy` option. */
  readonly source: 'account' | 'default'
}

/** `auth.accounts`' policy methods (SPEC §5.52). */
export interface PolicyApi {
  /**
   * Sets the account's policy (admins only): it replaces the host's default whole, a rule
   * left out is off; `null` goes back to the default. Creates, edits, grants and resets
   * that break it are refused from then on; passcodes made before keep working, are
   * marked `violatesPolicy`, and when there are any the account's recipients get one
   * email saying how many (durable: retried by the notifier's pass until sent). Setting
   * the policy the account has already changes nothing: no record, no event, no email.
   * Needs a store with policies (`getAccountPolicy`…), else a `ConfigurationError`.
   */
  setPolicy(actor: Actor, accountId: string, policy: AccountPolicyInput | null): Promise<AccountPolicyView>
  /** The account's policy: its own, or the host's default. */
  getPolicy(accountId: string): Promise<AccountPolicyView>
}

/** What the policy methods need of the service. */
export interface PolicyContext extends Pick<ManagementContext, 'store' | 'now' | 'emit' | 'auditSigner'> {
  /** The host's `policy` option. */
  readonly defaultPolicy: AccountPolicy
  readonly notices: PolicyNotices
  /** How long a policy email's claim holds (the notifier's `leaseMs`). */
  readonly leaseMs: number
}

/**
 * Reads an account's policy: its own, or `defaultPolicy` (a store without policies has
 * only the default).
 *
 * @example
 * ```ts
 * const policyOf = policyReader(store, NO_POLICY)
 * const policy = await policyOf('acc_1')
 * ```
 */
export function policyReader(store: ManagementContext['store'], defaultPolicy: AccountPolicy): PolicyReader {
  return async (accountId) => (await store.getAccountPolicy?.(accountId)) ?? defaultPolicy
}

const samePolicy = (a: AccountPolicy | null, b: AccountPolicy | null): boolean =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.maxLifetimeDays === b.maxLifetimeDays &&
    a.requireExpiry === b.requireExpiry &&
    a.requireDescription === b.requireDescription)

/** Builds the policy methods of `auth.accounts`. */
export function createPolicyApi(context: PolicyContext): PolicyApi {
  const { store, defaultPolicy } = context
  const view = (policy: AccountPolicy | null): AccountPolicyView => ({
    ...(policy ?? defaultPolicy),
    source: policy === null ? 'default' : 'account',
  })

  /** The live passcodes of the account that break `policy`: account passcodes not expired, user passcodes neither revoked nor expired. */
  async function breaking(accountId: string, policy: AccountPolicy, now: number): Promise<number> {
    const [passcodes, users] = await Promise.all([
      storeCall(() => store.listAccountPasscodes(accountId)),
      storeCall(() => store.listUserPasscodes(accountId)),
    ])
    return (
      passcodes.filter((record) => !isExpired(record, now) && accountPasscodeViolations(policy, record).length > 0).length +
      users.filter(
        (record) =>
          record.revokedAt === null && !isExpired(record, now) && userPasscodeViolations(policy, record.validity, record.grantedAt).length > 0,
      ).length
    )
  }

  return {
    async setPolicy(actor, accountId, input) {
      const who = parseInput('actor', 'actor', actor)
      if (!canManageUserPasscodes(who)) throw new ForbiddenError("Only admins change an account's passcode policy")
      const account = parseInput('accountId', 'accountId', accountId)
      const policy = input === null ? null : parseInput('policy', 'policy', input)
      const getAccountPolicy = store.getAccountPolicy?.bind(store)
      const setAccountPolicy = store.setAccountPolicy?.bind(store)
      if (getAccountPolicy === undefined || setAccountPolicy === undefined) {
        throw new ConfigurationError('The passcode store keeps no account policies (no setAccountPolicy): only the `policy` option applies')
      }
      const before = await storeCall(() => getAccountPolicy(account))
      if (samePolicy(before, policy)) return view(before)
      const now = context.now()
      const effective = policy ?? defaultPolicy
      const count = await breaking(account, effective, now)
      const notice = count === 0 ? null : { count, token: crypto.randomUUID(), claimedUntil: now + context.leaseMs }
      const audit = auditEntry(
        context.auditSigner,
        who,
        account,
        now,
        'account.policy_changed',
        { type: 'account' },
        changedFields(policyFields(before), policyFields(policy)),
      )
      await storeCall(() => setAccountPolicy(account, policy, notice, audit))
      context.emit?.({ type: 'account.policy_changed', accountId: account, actorUserId: who.userId, policy: view(policy), violations: count })
      if (notice !== null) {
        // Sent at once under the claim taken with the change; the notifier's pass retries it if this fails.
        await context.notices.send(
          { accountId: account, policy: effective, count, setAt: now, notifiedAt: null, token: notice.token },
          notice.claimedUntil,
        )
      }
      return view(policy)
    },
    async getPolicy(accountId) {
      const account = parseInput('accountId', 'accountId', accountId)
      return view((await storeCall(async () => store.getAccountPolicy?.(account))) ?? null)
    },
  }
}
