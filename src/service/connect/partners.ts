import type { PartnerRegistry } from '../../ports/partner-registry'

/**
 * A fixed partner whitelist from names. Names are trimmed and compared
 * case-insensitively (SPEC §5.3).
 *
 * @example
 * ```ts
 * const partners = staticPartners(['Acme', 'globex'])
 * partners.isWhitelisted('acme') // true
 * ```
 */
export function staticPartners(names: readonly string[]): PartnerRegistry {
  const set = new Set(names.map((name) => name.trim().toLowerCase()))
  const sorted = [...set].sort()
  return { isWhitelisted: (normalizedName) => set.has(normalizedName), list: () => [...sorted] }
}
