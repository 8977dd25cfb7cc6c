import type { FastifyReply } from 'fastify'
import { answerBody, answerHeaders, type Answer } from '../http/answer'

/**
 * Sends a passcode-auth answer through a Fastify reply: a pre-serialised string with
 * its Content-Type set, so neither Fastify's serializer nor one the host configured
 * re-encodes it, and the bytes match every other adapter.
 *
 * @example
 * ```ts
 * return sendAnswer(reply, await connectRequest(request))
 * ```
 */
export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.statusCode).headers(answerHeaders(answer)).send(answerBody(answer))
}
