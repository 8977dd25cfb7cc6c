import { canManageUserPasscodes } from '../../core/rules'
import { managementFailure } from '../../protocol/management-errors'
import {
  issuedWebhookSchema,
  webhookAnswerSchema,
  webhookDeliveryAnswerSchema,
  webhookDeliveryPageSchema,
  webhookListSchema,
} from '../../protocol/management-schemas'
import { parseQuery } from '../../protocol/query-parameters'
import { webhookDeliveriesQuerySchema } from '../../service/webhooks/webhook-input'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { failureAnswer, noContent, schemaAnswer } from './respond'
import type { DashboardRequest, DashboardResponse, DashboardSession } from './types'

/*
 * Webhooks in the management API (SPEC §5.53): admins only, like `auth.webhooks`, which
 * every route calls through (it checks the role and the IDs). The signing secret is in
 * the answers of create and rotate only, as the service returns it.
 */

/** What these handlers use of a route's context (routes.ts `RouteContext`). */
interface WebhookRouteContext {
  readonly auth: PasscodeAuth
  readonly session: DashboardSession
  readonly params: Readonly<Record<string, string>>
  readonly request: DashboardRequest
}

/** `GET /webhooks`: the account's endpoints, oldest first. */
export async function listWebhooks({ auth, session }: WebhookRouteContext): Promise<DashboardResponse> {
  return schemaAnswer(200, webhookListSchema, { endpoints: await auth.webhooks.list(session.actor, session.accountId) })
}

/** `POST /webhooks`: registers an endpoint; the answer carries its secret, once. */
export async function createWebhook({ auth, session }: WebhookRouteContext, body: Record<string, unknown>): Promise<DashboardResponse> {
  return schemaAnswer(201, issuedWebhookSchema, await auth.webhooks.create(session.actor, session.accountId, body as never))
}

/** `PATCH /webhooks/:endpointId`: URL, event types, description or enabled. */
export async function updateWebhook({ auth, session, params }: WebhookRouteContext, body: Record<string, unknown>): Promise<DashboardResponse> {
  const endpoint = await auth.webhooks.update(session.actor, session.accountId, params.endpointId!, body)
  return schemaAnswer(200, webhookAnswerSchema, { endpoint })
}

/** `DELETE /webhooks/:endpointId`: the endpoint and its deliveries. */
export async function deleteWebhook({ auth, session, params }: WebhookRouteContext): Promise<DashboardResponse> {
  await auth.webhooks.delete(session.actor, session.accountId, params.endpointId!)
  return noContent()
}

/** `POST /webhooks/:endpointId/rotate-secret`: a new secret, once; the old one signs for 24 h more. */
export async function rotateWebhookSecret({ auth, session, params }: WebhookRouteContext): Promise<DashboardResponse> {
  return schemaAnswer(201, issuedWebhookSchema, await auth.webhooks.rotateSecret(session.actor, session.accountId, params.endpointId!))
}

/** `POST /webhooks/:endpointId/test`: queues a `webhook.test` event to the endpoint. */
export async function sendTestWebhook({ auth, session, params }: WebhookRouteContext): Promise<DashboardResponse> {
  const delivery = await auth.webhooks.sendTest(session.actor, session.accountId, params.endpointId!)
  return schemaAnswer(201, webhookDeliveryAnswerSchema, { delivery })
}

/** `GET /webhook-deliveries`: a page of deliveries, newest first; filters and paging in the query string. */
export async function listWebhookDeliveries({ auth, session, request }: WebhookRouteContext): Promise<DashboardResponse> {
  // The role first (the service checks it before the options too), so a member learns nothing from a 400.
  if (!canManageUserPasscodes(session.actor)) return failureAnswer(managementFailure('ERR_FORBIDDEN', 'Only admins manage webhooks'))
  const options = parseQuery(webhookDeliveriesQuerySchema, request.query)
  return schemaAnswer(200, webhookDeliveryPageSchema, await auth.webhooks.deliveries(session.actor, session.accountId, options))
}

/** `POST /webhook-deliveries/:deliveryId/replay`: sends a delivery once more, now, with its `webhook-id`. */
export async function replayWebhookDelivery({ auth, session, params }: WebhookRouteContext): Promise<DashboardResponse> {
  const delivery = await auth.webhooks.replay(session.actor, session.accountId, params.deliveryId!)
  return schemaAnswer(200, webhookDeliveryAnswerSchema, { delivery })
}
