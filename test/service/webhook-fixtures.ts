import { Webhook } from 'standardwebhooks'
import type { WebhookSender, WebhookSendRequest, WebhookSendResult } from '../../src/ports/webhook-sender'

/** One request a {@link recordingSender} received. */
export interface SentRequest extends WebhookSendRequest {
  readonly at: number
}

/**
 * A sender that records every attempt and answers what `answer` says (a 204 unless told
 * otherwise); `check` refuses nothing. For the service's tests on the memory store: no
 * socket is opened (the real sender has its own tests).
 */
export function recordingSender(now: () => number = Date.now) {
  const sent: SentRequest[] = []
  let answer: (request: WebhookSendRequest) => WebhookSendResult = () => ({ statusCode: 204, error: null })
  const sender: WebhookSender = {
    check: async () => ({ ok: true }),
    send: async (request) => {
      sent.push({ ...request, at: now() })
      return answer(request)
    },
  }
  return {
    sender,
    sent,
    answerWith(next: (request: WebhookSendRequest) => WebhookSendResult) {
      answer = next
    },
  }
}

/** The body of a request verified by the `standardwebhooks` package as it is, with `secret`. */
export function verifiedBy(secret: string, request: WebhookSendRequest): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(request.body, { ...request.headers }) as { type: string; timestamp: string; data: Record<string, unknown> }
}

/** The event types of the requests, in order. */
export const typesOf = (sent: readonly WebhookSendRequest[]): string[] => sent.map((request) => (JSON.parse(request.body) as { type: string }).type)
