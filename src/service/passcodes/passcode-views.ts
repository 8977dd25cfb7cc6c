import type { AccountPasscodeRecord } from '../../core/passcode-records'
import type { PasscodeView } from '../../core/passcode-views'
import type { AccountPolicy } from '../../core/policy'
import type { LeakMark } from '../../ports/passcode-store'
import { storeCall } from '../deadline'
import type { PasscodesContext } from './passcodes-context'
import { toPasscodeView } from '../views'
import { partnersNotWhitelisted } from './partner-binding'

/** What the views need of `auth.passcodes`' context. */
export type ViewsContext = Pick<PasscodesContext, 'now' | 'partners' | 'limits' | 'pendingUse' | 'store' | 'scopes' | 'policyOf'>

/** The open leak marks (SPEC §5.42) of the records' accounts, by passcode id: one read per account. */
async function openLeaks(context: Pick<ViewsContext, 'store'>, records: readonly AccountPasscodeRecord[]): Promise<Map<string, LeakMark>> {
  const { store } = context
  const byId = new Map<string, LeakMark>()
  if (store.listLeakMarks === undefined) return byId
  for (const accountId of new Set(records.map((record) => record.accountId))) {
    for (const mark of await storeCall(() => store.listLeakMarks(accountId))) if (mark.kind === 'account') byId.set(mark.key, mark)
  }
  return byId
}

/** The store's credit balances (SPEC §5.50) of the records that have credits, by passcode id: one read per account, none without credits. */
async function creditBalances(context: ViewsContext, records: readonly AccountPasscodeRecord[], now: number): Promise<Map<string, number>> {
  const { store } = context
  const byId = new Map<string, number>()
  if (store.listCreditBalances === undefined) return byId
  for (const accountId of new Set(records.filter((record) => record.credits != null).map((record) => record.accountId))) {
    for (const { kind, key, balance } of await storeCall(() => store.listCreditBalances(accountId, now)))
      if (kind === 'account') byId.set(key, balance)
  }
  return byId
}

/**
 * The open leak mark (SPEC §5.42) of one account passcode, or `undefined`: whether its
 * current value was found in public and no admin has acted since (SPEC §5.45).
 */
export async function openLeakOf(context: Pick<ViewsContext, 'store'>, record: AccountPasscodeRecord): Promise<LeakMark | undefined> {
  return (await openLeaks(context, [record])).get(record.id)
}

/**
 * The views of account passcodes at the context's now: status, the bound partners no
 * longer whitelisted, the last use including what this instance has not flushed, and
 * the open leak mark. `leaked: false` skips the marks' read when the caller knows there
 * is none (a passcode just created, or rotated or enabled, which closes its mark).
 */
export async function passcodeViews(
  context: ViewsContext,
  records: readonly AccountPasscodeRecord[],
  options: { readonly leaked?: false } = {},
): Promise<PasscodeView[]> {
  const now = context.now()
  const soonDays = context.limits.expiringSoonDays
  const missing = await partnersNotWhitelisted(context.partners, records)
  const leaks = options.leaked === false ? new Map<string, LeakMark>() : await openLeaks(context, records)
  // The account's policy (SPEC §5.52), read once per account: what `violatesPolicy` is measured against.
  const policies = new Map<string, AccountPolicy>()
  for (const accountId of new Set(records.map((record) => record.accountId))) policies.set(accountId, await context.policyOf(accountId))
  const balances = await creditBalances(context, records, now)
  return records.map((record) =>
    toPasscodeView(record, now, soonDays, {
      partnersNotWhitelisted: missing.get(record.id) ?? [],
      pending: context.pendingUse?.(record.id),
      leak: leaks.get(record.id),
      declaredScopes: context.scopes.names,
      policy: policies.get(record.accountId),
      balance: balances.get(record.id),
    }),
  )
}

/** The view of one account passcode; see {@link passcodeViews}. */
export async function passcodeView(
  context: ViewsContext,
  record: AccountPasscodeRecord,
  options?: { readonly leaked?: false },
): Promise<PasscodeView> {
  const [view] = await passcodeViews(context, [record], options)
  return view!
}

/**
 * Orders views for `list`: by creation (as stored); least recently used first with
 * never-used ones at the top, so that passcodes nobody uses stand out; or fewest
 * credits left first (SPEC §5.50), passcodes without credits last.
 */
export function sortViews(views: PasscodeView[], sortBy: 'createdAt' | 'lastUsedAt' | 'creditsRemaining'): PasscodeView[] {
  if (sortBy === 'createdAt') return views
  // Array.prototype.sort is stable: ties keep the creation order.
  if (sortBy === 'creditsRemaining') {
    const remaining = (view: PasscodeView): number => view.credits?.remaining ?? Number.POSITIVE_INFINITY
    return views.sort((a, b) => (remaining(a) === remaining(b) ? 0 : remaining(a) < remaining(b) ? -1 : 1))
  }
  const lastUsed = (view: PasscodeView): number => view.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY
  return views.sort((a, b) => lastUsed(a) - lastUsed(b))
}

/**
 * The views `list` answers with its filters (SPEC §5.51): those carrying every one of
 * `tags`, and those whose name, description or a tag holds `search` (case-insensitive).
 */
export function filterViews(views: PasscodeView[], tags: readonly string[] | undefined, search: string | undefined): PasscodeView[] {
  const text = search?.trim().normalize('NFC').toLowerCase()
  return views.filter(
    (view) =>
      (tags === undefined || tags.every((tag) => view.tags.includes(tag))) &&
      (text === undefined ||
        text === '' ||
        view.name.toLowerCase().includes(text) ||
        view.description.toLowerCase().includes(text) ||
        view.tags.some((tag) => tag.includes(text))),
  )
}
