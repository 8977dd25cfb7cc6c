import type { Context } from 'hono'
import { fetchRequestReader } from '../http/fetch/fetch-request'
import type { RequestReader } from '../http/request-reader'

const NO_ADDRESS = (): undefined => undefined

/** The request reader of a Hono context: the `Request` is `c.req.raw`. */
export function honoReader(options: { clientAddress?: ((c: Context) => string | undefined) | undefined } | undefined): RequestReader<Context> {
  return fetchRequestReader((c: Context) => c.req.raw, options?.clientAddress ?? NO_ADDRESS)
}

/** Checks the options of a Hono adapter at once. */
export const HONO_OPTION_CHECKS = {
  clientAddress: (value: unknown) =>
    value === undefined || typeof value === 'function' ? undefined : 'must be a function (c) => string | undefined',
} as const
