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
  /**
   * Whether the operator has whitelisted this partner. Answer synchronously when you
   * can: a promise is raced against the request's deadline (SPEC §5.23).
   *
   * @param normalizedName - the partner name, NFC-normalised, trimmed and lower-cased
   */
  isWhitelisted(normalizedName: string): boolean | Promise<boolean>
  /**
   * Every whitelisted name (normalised), sorted, for the dashboard's read-only
   * `GET /partners`. Optional: without it that route answers an empty list with
   * `listed: false`.
   */
  list?(): string[] | Promise<string[]>
}
