// The restrictions and limits of a passcode in one folded part of a form (SPEC §5.48 to
// §5.51): scopes, address ranges, rate limit, credits, and for account passcodes
// metadata and tags. Create and grant send what is set; an edit sends only what changed,
// and a field cleared as the API removes it (null, or an empty list).
import { h } from '../dom'
import type { DeclaredScope, Restrictions } from '../wire'
import { addressField, readAddresses } from './address-field'
import { creditsFieldset, rateLimitFieldset, readCredits, readRateLimit } from './limit-fields'
import { metadataField, readMetadata, readTags, tagsField } from './metadata-fields'
import { readScopes, scopesFieldset } from './scopes-field'

/** The folded part of a form and how to read it. */
export interface RestrictionFields {
  /** The `<details>` to put in the form. */
  readonly element: HTMLDetailsElement
  /** For create and grant: every field that is set (what is left out is the API's default: none). */
  read(form: HTMLElement): Record<string, unknown>
  /** For an edit: the fields that differ from `current`, a cleared one as the API removes it. */
  changes(form: HTMLElement): Record<string, unknown>
}

/** What the part offers. */
export interface RestrictionOptions {
  /** The ids' prefix, unique in the page. */
  readonly id: string
  /** The host's declared scopes: no Scopes fieldset without any. */
  readonly declared: readonly DeclaredScope[]
  /** Metadata and tags: account passcodes only. */
  readonly metadata: boolean
  /** The passcode edited, for the prefill; none at create and grant. */
  readonly current?: Restrictions
}

/** Whether the passcode has any restriction or limit: then an edit shows the part open. */
function restricted(current: Restrictions | undefined): boolean {
  if (current === undefined) return false
  const { scopes, allowedAddresses, rateLimit, credits, metadata = null, tags = [] } = current
  return scopes !== null || allowedAddresses.length > 0 || rateLimit !== null || credits !== null || metadata !== null || tags.length > 0
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * The "Scopes, addresses and limits" part of a create, edit or grant form.
 *
 * @example
 * ```ts
 * const part = restrictionFields({ id: 'create', declared: scopes, metadata: true })
 * form.append(part.element) // on submit: { ...input, ...part.read(form) }
 * ```
 */
export function restrictionFields({ id, declared, metadata, current }: RestrictionOptions): RestrictionFields {
  const scopes = scopesFieldset(id, declared, current?.scopes ?? null, current?.unknownScopes ?? [])
  const element = h(
    'details',
    { class: 'restrictions', open: restricted(current) },
    h('summary', {}, metadata ? 'Scopes, addresses, limits, metadata and tags' : 'Scopes, addresses and limits'),
    h(
      'div',
      { class: 'fields' },
      scopes,
      addressField(`${id}-addresses`, current?.allowedAddresses),
      rateLimitFieldset(id, current?.rateLimit ?? null),
      creditsFieldset(id, current?.credits ?? null),
      metadata ? [metadataField(`${id}-metadata`, current?.metadata ?? null), tagsField(`${id}-tags`, current?.tags)] : null,
    ),
  )
  /** Every field of the part, as the API takes it. */
  const values = (form: HTMLElement): Record<string, unknown> => ({
    ...(scopes ? { scopes: readScopes(form) } : {}),
    allowedAddresses: readAddresses(form),
    rateLimit: readRateLimit(form),
    credits: readCredits(form),
    ...(metadata ? { metadata: readMetadata(form), tags: readTags(form) } : {}),
  })
  return {
    element,
    read(form) {
      const set: Record<string, unknown> = {}
      for (const [name, value] of Object.entries(values(form)))
        if (value !== null && !(Array.isArray(value) && value.length === 0 && name !== 'scopes')) set[name] = value
      return set
    },
    changes(form) {
      const before: Record<string, unknown> = {
        scopes: current?.scopes ?? null,
        allowedAddresses: current?.allowedAddresses ?? [],
        rateLimit: current?.rateLimit ?? null,
        // As the form shows them: the balance and its refill, not when the next refill is.
        credits: current?.credits ? { remaining: current.credits.remaining, refill: current.credits.refill } : null,
        metadata: current?.metadata ?? null,
        tags: current?.tags ?? [],
      }
      const changed: Record<string, unknown> = {}
      for (const [name, value] of Object.entries(values(form))) if (!same(value, before[name])) changed[name] = value
      return changed
    },
  }
}
