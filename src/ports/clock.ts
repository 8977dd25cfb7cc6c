/**
 * The time source. Injected everywhere so that tests control time; the core never
 * reads the clock itself.
 *
 * @example
 * ```ts
 * const frozen: Clock = () => new Date('2026-01-01T00:00:00Z')
 * ```
 */
export type Clock = () => Date
