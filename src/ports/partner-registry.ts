/**
 * The operator's whitelist of partner names (SPEC §4: not per account). Names reach
 * it trimmed and lower-cased.
 *
 * @example
 * ```ts
 * const partners: PartnerRegistry = { isWhitelisted: (name) => name === 'acme' }
 * ```
 */
export interface PartnerRegistry {
  isWhitelisted(normalizedName: string): boolean | Promise<boolean>
}
