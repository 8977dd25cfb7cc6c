import type { Request as ExpressRequest, Response as ExpressResponse } from 'express'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { expressReader } from '../express/reader'
import { sendAnswer } from '../fastify/send-answer'
import { fastifyReader } from '../fastify/reader'
import type { Answer } from '../http/answer'
import { writeNodeResponse } from '../http/node/write-response'
import type { RequestReader } from '../http/request-reader'

/**
 * What Nest hands a guard, a filter or a route handler: Express's `req` and `res` on
 * `@nestjs/platform-express`, Fastify's `request` and `reply` on
 * `@nestjs/platform-fastify`. Fastify's wrap Node's as `raw`; Express's are Node's.
 * The types are the frameworks' own, imported for the type checker only: this entry
 * loads neither framework.
 */
export type NestRequest = ExpressRequest | FastifyRequest
/** The response of {@link NestRequest}'s platform. */
export type NestResponse = ExpressResponse | FastifyReply

const isFastifyRequest = (request: NestRequest): request is FastifyRequest => 'raw' in request
const isFastifyReply = (response: NestResponse): response is FastifyReply => 'raw' in response

/** The request reader of the platform's request: the Express adapter's, or the Fastify adapter's. */
export function readerOf(request: NestRequest): RequestReader<NestRequest> {
  return (isFastifyRequest(request) ? fastifyReader : expressReader) as RequestReader<NestRequest>
}

/**
 * Writes a passcode-auth answer through the platform's response, as the Express and
 * Fastify adapters write it: status, headers and the exact body bytes.
 */
export function writeAnswer(response: NestResponse, answer: Answer): void {
  if (isFastifyReply(response)) void sendAnswer(response, answer)
  else writeNodeResponse(response, answer)
}

/** Adds headers (the `Sunset` of a passcode in its last days) to the host's own answer. */
export function addHeaders(response: NestResponse, headers: Readonly<Record<string, string>>): void {
  if (isFastifyReply(response)) response.headers(headers)
  else for (const name in headers) response.setHeader(name, headers[name]!)
}
