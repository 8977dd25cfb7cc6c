import type { FastifyRequest } from 'fastify'
import { nodeRequestReader } from '../http/node/node-request'
import type { RequestReader } from '../http/request-reader'

/** Fastify's request wraps Node's as `request.raw`; `request.ip` honours `trustProxy`. */
export const fastifyReader: RequestReader<FastifyRequest> = nodeRequestReader(
  (request: FastifyRequest) => request.raw,
  (request) => request.ip,
)
