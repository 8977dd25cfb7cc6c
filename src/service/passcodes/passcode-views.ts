import type { AccountPasscodeRecord, PasscodeView } from '../../core/entities'
import type { PasscodesContext } from './passcodes-context'
import { toPasscodeView } from '../views'
import { partnersNotWhitelisted } from './partner-binding'

/** What the views need of `auth.passcodes`' context. */
export type ViewsContext = Pick<PasscodesContext, 'now' | 'partners' | 'limits' | 'pendingUse'>

/**
 * The views of account passcodes at the context's now: status, the bound partners no
 * longer whitelisted, and the last use including what this instance has not flushed.
 */
export async function passcodeViews(context: ViewsContext, records: readonly AccountPasscodeRecord[]): Promise<PasscodeView[]> {
  const now = context.now()
  const soonDays = context.limits.expiringSoonDays
  const missing = await partnersNotWhitelisted(context.partners, records)
  return records.map((record) =>
    toPasscodeView(record, now, soonDays, {
      partnersNotWhitelisted: missing.get(record.id) ?? [],
      pending: context.pendingUse?.(record.id),
    }),
  )
}

/** The view of one account passcode; see {@link passcodeViews}. */
export async function passcodeView(context: ViewsContext, record: AccountPasscodeRecord): Promise<PasscodeView> {
  const [view] = await passcodeViews(context, [record])
  return view!
}

/**
 * Orders views for `list`: by creation (as stored), or least recently used first
 * with never-used ones at the top, so that passcodes nobody uses stand out.
 */
export function sortViews(views: PasscodeView[], sortBy: 'createdAt' | 'lastUsedAt'): PasscodeView[] {
  if (sortBy === 'createdAt') return views
  const lastUsed = (view: PasscodeView): number => view.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY
  // Array.prototype.sort is stable: ties keep the creation order.
  return views.sort((a, b) => lastUsed(a) - lastUsed(b))
}
