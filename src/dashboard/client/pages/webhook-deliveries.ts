// Settings > Webhooks, its recent deliveries (`GET /webhook-deliveries`): status, last
// status code and time, each one that ended replayable; by pages of 25 (the API's
// cursors, Newer / Older) and for one endpoint or all. Every string from the server goes
// in as text.
import { api, segment } from '../api'
import { h } from '../dom'
import { announce, run } from '../feedback'
import { cell, emptyRow, listTable } from '../components/table'
import { time } from '../components/time'
import type { WebhookDelivery, WebhookDeliveryAnswer, WebhookDeliveryPage } from '../wire'

const STATUS: Readonly<Record<WebhookDelivery['status'], string>> = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' }
/** The badge colours the passcodes' statuses use: delivered is fine, pending is waiting, failed is bad. */
const BADGE: Readonly<Record<WebhookDelivery['status'], string>> = { pending: 'expiring_soon', succeeded: 'active', failed: 'expired' }
/** Deliveries per page of the list. */
const PER_PAGE = 25

/**
 * The deliveries list: the endpoint filter, the table and its pages. `urls` (endpoint ID
 * → URL, kept by the page) names the endpoints; `load()` draws the list again from its
 * first page, with the filter's choices from `urls` (the one chosen kept while it exists).
 */
export function deliveriesList(urls: ReadonlyMap<string, string>): { element: HTMLElement; load(): Promise<void> } {
  const rows = h('tbody', {})
  const filter = h('select', { id: 'deliveries-endpoint', name: 'endpoint' })
  // One cursor per page shown so far (the first page has none).
  const cursors: (string | null)[] = [null]
  let nextCursor: string | null = null
  const where = h('span', { class: 'page-of' })
  const step = (by: number) => () => {
    if (by < 0 && cursors.length > 1) cursors.pop()
    else if (by > 0 && nextCursor !== null) cursors.push(nextCursor)
    else return
    void run(null, page)
  }
  const newer = h('button', { type: 'button', onclick: step(-1) }, 'Newer')
  const older = h('button', { type: 'button', onclick: step(1) }, 'Older')
  const pages = h('nav', { class: 'pager', 'aria-label': 'Pages of deliveries' }, newer, where, older)
  filter.addEventListener('change', () => {
    cursors.splice(1)
    void run(null, page)
  })

  const replay = (delivery: WebhookDelivery) => {
    const button = h(
      'button',
      { type: 'button', 'aria-label': `Replay ${delivery.eventType} to ${urls.get(delivery.endpointId) ?? delivery.endpointId}` },
      'Replay',
    )
    button.addEventListener('click', () => {
      void run(button, async () => {
        await api<WebhookDeliveryAnswer>('POST', `/webhook-deliveries/${segment(delivery.id)}/replay`)
        await page()
        announce(`${delivery.eventType} queued again, with the same webhook-id.`)
      })
    })
    return button
  }

  const row = (delivery: WebhookDelivery) =>
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

  /** The page the cursors point at, for the endpoint chosen. */
  async function page(): Promise<void> {
    const query = new URLSearchParams({ limit: String(PER_PAGE) })
    if (filter.value !== '') query.set('endpointId', filter.value)
    const cursor = cursors.at(-1)
    if (cursor != null) query.set('cursor', cursor)
    const answer = await api<WebhookDeliveryPage>('GET', `/webhook-deliveries?${query}`)
    nextCursor = answer.nextCursor
    const none = filter.value === '' ? 'No deliveries yet.' : 'No deliveries to this endpoint yet.'
    rows.replaceChildren(...(answer.deliveries.length === 0 ? [emptyRow(6, none)] : answer.deliveries.map(row)))
    pages.hidden = cursors.length === 1 && nextCursor === null
    where.textContent = `Page ${cursors.length}`
    newer.setAttribute('aria-disabled', String(cursors.length === 1))
    older.setAttribute('aria-disabled', String(nextCursor === null))
  }

  const element = h(
    'div',
    {},
    h('div', { class: 'fields deliveries-filter' }, h('div', { class: 'field' }, h('label', { for: filter.id }, 'Endpoint'), filter)),
    listTable(['Event', 'Endpoint', 'Status', 'Code', 'Last attempt', 'Actions'], rows, 'deliveries'),
    pages,
  )
  return {
    element,
    async load() {
      const chosen = urls.has(filter.value) ? filter.value : ''
      filter.replaceChildren(
        h('option', { value: '', selected: chosen === '' }, 'All endpoints'),
        ...[...urls].map(([id, url]) => h('option', { value: id, selected: chosen === id }, url)),
      )
      cursors.splice(1)
      await page()
    },
  }
}
