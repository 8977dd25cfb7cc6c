import type { WebhookEndpointRecord } from '../../ports/webhook-store'
import { escapeHtml } from '../escape-html'

/**
 * The email to an account's admins when an endpoint is disabled for failing (SPEC
 * §5.53): which endpoint (its URL without the query, which may hold a token), since
 * when it failed and how to turn it back on. Never its secret.
 */
export function webhookDisabledMessage(endpoint: WebhookEndpointRecord, url: string): { subject: string; text: string; html: string } {
  const since = endpoint.failingSince === null ? 'for 5 days' : `since ${new Date(endpoint.failingSince).toISOString()}`
  const description = endpoint.description === '' ? '' : ` (${endpoint.description})`
  const text = [
    `The webhook endpoint ${url}${description} of account ${endpoint.accountId} was disabled: every delivery to it failed ${since}.`,
    '',
    'No events are sent to it while it is disabled. Fix the receiver, then enable the endpoint again in Settings → Webhooks;',
    'failed deliveries can be replayed there.',
  ].join('\n')
  const html = `<p>The webhook endpoint <code>${escapeHtml(url)}</code>${escapeHtml(description)} of account ${escapeHtml(endpoint.accountId)} was disabled: every delivery to it failed ${escapeHtml(since)}.</p>
<p>No events are sent to it while it is disabled. Fix the receiver, then enable the endpoint again in Settings → Webhooks; failed deliveries can be replayed there.</p>`
  return { subject: 'A webhook endpoint was disabled after failing for 5 days', text, html }
}
