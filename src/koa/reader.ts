import type { Context } from 'koa'
import { nodeRequestReader } from '../http/node/node-request'
import type { RequestReader } from '../http/request-reader'

/** Koa's context holds the Node request as `ctx.req`; `ctx.ip` honours `app.proxy`. */
export const koaReader: RequestReader<Context> = nodeRequestReader(
  (ctx: Context) => ctx.req,
  (ctx) => ctx.ip,
)
