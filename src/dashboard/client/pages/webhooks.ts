// Settings > Webhooks (SPEC §5.53), for admins: the account's endpoints (`GET /webhooks`)
// with "Send test event", a form to add one (its signing secret shown once, as a
// passcode's value is), and the recent deliveries (`GET /webhook-deliveries`) with their
// status, last status code and time, each one that ended replayable. Every string from
// the server goes in as text.
import { api, segment } from '../api'
import { $, h } from '../dom'
import { announce, run } from '../feedback'
import { actionForm } from '../components/action-form'
import { revealValue } from '../components/reveal'
import { cell, emptyRow, listTable } from '../components/table'
import { time } from '../components/time'
import type { IssuedWebhook, WebhookDelivery, WebhookDeliveryAnswer, WebhookDeliveryPage, WebhookEndpoint, WebhookList } from '../wire'

const COPY_NOW = 'Copy this signing secret now and give it to the receiver: you will not see it again.'
const STATUS: Readonly<Record<WebhookDelivery['status'], string>> = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' }
/** The badge colours the passcodes' statuses use: delivered is fine, pending is waiting, failed is bad. */
const BADGE: Readonly<Record<WebhookDelivery['status'], string>> = { pending: 'expiring_soon', succeeded: 'active', failed: 'expired' }

const eventsText = (endpoint: WebhookEndpoint) => (endpoint.events === 'all' ? 'All events' : endpoint.events.join(', '))

function stateText(endpoint: WebhookEndpoint): string {
  if (!endpoint.enabled) return endpoint.disabledReason === 'failing' ? 'Disabled: failing for 5 days' : 'Disabled'
  return endpoint.failingSince === null ? 'Enabled' : 'Enabled, failing'
}

/** Settings > Webhooks, for admins. */
export async function webhooksPage(): Promise<void> {
  // Members never get here: the server answers this page for admins only (pages.ts).
  const content = $<HTMLElement>(document, '#content')
  const endpointRows = h('tbody', {})
  const deliveryRows = h('tbody', {})
  const urls = new Map<string, string>()
  const add = h('button', { type: 'button', class: 'primary', id: 'webhook-add' }, '+ Endpoint')
  const url = h('input', { id: 'webhook-url', name: 'url', type: 'url', required: true, autocomplete: 'off', 'data-field': 'url' })
  const description = h('input', { id: 'webhook-description', name: 'description', autocomplete: 'off', 'data-field': 'description' })
  const close = () => {
    form.hidden = true
    add.hidden = false
    add.focus()
  }
  const form: HTMLFormElement = actionForm(
    { class: 'panel', id: 'webhook-form', hidden: true, 'aria-labelledby': 'webhook-form-title' },
    [
      h('h3', { id: 'webhook-form-title' }, 'New endpoint'),
      h(
        'div',
        { class: 'fields' },
        h('div', { class: 'field' }, h('label', { for: 'webhook-url' }, 'URL'), url),
        h('div', { class: 'field' }, h('label', { for: 'webhook-description' }, 'Description'), description),
      ),
      h('p', { class: 'muted' }, 'It receives every event type; a test event shows whether it answers.'),
    ],
    {
      submit: 'Add & View secret',
      onCancel: close,
      action: async () => {
        const input: Record<string, unknown> = { url: url.value.trim(), events: 'all' }
        if (description.value !== '') input.description = description.value
        const issued = await api<IssuedWebhook>('POST', '/webhooks', input)
        form.reset()
        close()
        await load()
        revealValue(`Endpoint ${issued.endpoint.url} added`, issued.secret, COPY_NOW, () => add.focus(), 'Signing secret')
      },
    },
  )
  add.addEventListener('click', () => {
    form.hidden = false
    add.hidden = true
    url.focus()
  })

  const sendTest = (endpoint: WebhookEndpoint) => {
    const button = h('button', { type: 'button', 'aria-label': `Send test event to ${endpoint.url}` }, 'Send test event')
    button.addEventListener('click', () => {
      void run(button, async () => {
        await api<WebhookDeliveryAnswer>('POST', `/webhooks/${segment(endpoint.id)}/test`)
        await loadDeliveries()
        announce(`Test event queued for ${endpoint.url}.`)
      })
    })
    return button
  }

  const replay = (delivery: WebhookDelivery) => {
    const button = h(
      'button',
      { type: 'button', 'aria-label': `Replay ${delivery.eventType} to ${urls.get(delivery.endpointId) ?? delivery.endpointId}` },
      'Replay',
    )
    button.addEventListener('click', () => {
      void run(button, async () => {
        await api<WebhookDeliveryAnswer>('POST', `/webhook-deliveries/${segment(delivery.id)}/replay`)
        await loadDeliveries()
        announce(`${delivery.eventType} queued again, with the same webhook-id.`)
      })
    })
    return button
  }

  const endpointRow = (endpoint: WebhookEndpoint) =>
    h(
      'tr',
      { 'data-key': endpoint.id },
      cell('URL', h('span', { class: 'url' }, endpoint.url), endpoint.description ? h('div', { class: 'muted' }, endpoint.description) : null),
      cell('Events', eventsText(endpoint)),
      cell('State', stateText(endpoint)),
      cell('Actions', endpoint.enabled ? sendTest(endpoint) : null),
    )

  const deliveryRow = (delivery: WebhookDelivery) =>
    h(
      'tr',
      { 'data-key': delivery.id },
      cell('Event', delivery.eventType, h('div', { class: 'muted' }, time(delivery.eventAt))),
      cell('Endpoint', urls.get(delivery.endpointId) ?? delivery.endpointId),
      cell('Status', h('span', { class: `badge ${BADGE[delivery.status]}` }, STATUS[delivery.status])),
      cell('Code', delivery.lastStatusCode === null ? (delivery.lastError ?? '') : String(delivery.lastStatusCode)),
      cell('Last attempt', time(delivery.lastAttemptAt)),
      cell('Actions', delivery.status === 'pending' ? null : replay(delivery)),
    )

  async function loadDeliveries(): Promise<void> {
    const { deliveries } = await api<WebhookDeliveryPage>('GET', '/webhook-deliveries?limit=25')
    deliveryRows.replaceChildren(...(deliveries.length === 0 ? [emptyRow(6, 'No deliveries yet.')] : deliveries.map(deliveryRow)))
  }

  async function load(): Promise<void> {
    const { endpoints } = await api<WebhookList>('GET', '/webhooks')
    urls.clear()
    for (const endpoint of endpoints) urls.set(endpoint.id, endpoint.url)
    endpointRows.replaceChildren(...(endpoints.length === 0 ? [emptyRow(4, 'No endpoints yet.')] : endpoints.map(endpointRow)))
    await loadDeliveries()
  }

  content.append(
    h('div', { class: 'actions' }, add),
    form,
    listTable(['URL', 'Events', 'State', 'Actions'], endpointRows, 'webhooks'),
    h('h2', { id: 'deliveries-title' }, 'Recent deliveries'),
    listTable(['Event', 'Endpoint', 'Status', 'Code', 'Last attempt', 'Actions'], deliveryRows, 'deliveries'),
  )
  await run(null, load)
}
