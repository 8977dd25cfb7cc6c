import type { Context } from 'hono'
import { fetchRequestReader } from '../http/fetch/fetch-request'
import type { RequestReader } from '../http/request-reader'

/** Options of the Hono adapters. */
export interface HonoAdapterOptions {
  /**
   * The caller's address, for the service's `rateLimit` option (requests without one
   * share one per-address count, reported once as `limiter.no_client_address`):
   * `getConnInfo(c).remote.address` from Hono's
   * helper of the runtime (`hono/bun`, `hono/deno`, `@hono/node-server/conninfo`).
   * @default none
   */
  clientAddress?: (c: Context) => string | undefined
}

const NO_ADDRESS = (): undefined => undefined

/** The request reader of a Hono context: the `Request` is `c.req.raw`. */
export function honoReader(options: HonoAdapterOptions | undefined): RequestReader<Context> {
  return fetchRequestReader((c: Context) => c.req.raw, options?.clientAddress ?? NO_ADDRESS)
}

/** Checks the options of a Hono adapter at once. */
export const HONO_OPTION_CHECKS = {
  clientAddress: (value: unknown) =>
    value === undefined || typeof value === 'function' ? undefined : 'must be a function (c) => string | undefined',
} as const
