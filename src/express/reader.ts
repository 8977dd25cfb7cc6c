import type { Request } from 'express'
import { nodeRequestReader } from '../http/node/node-request'
import type { RequestReader } from '../http/request-reader'

/** Express's `req` is a Node request; `req.ip` honours the app's `trust proxy` setting. */
export const expressReader: RequestReader<Request> = nodeRequestReader(
  (req: Request) => req,
  (req) => req.ip,
)
