import { sqlType } from './named-statement'

/**
 * The inputs of a claim of due emails or deliveries (named-statement.ts): the rows due
 * at `now`, at most `limit`, taken by `token` until `now + leaseMs`. The request a
 * runner hands the store has these fields, so a claim passes it as it is.
 */
export const CLAIM_INPUTS = { now: sqlType.bigint, limit: sqlType.integer, token: sqlType.text, leaseMs: sqlType.bigint } as const
