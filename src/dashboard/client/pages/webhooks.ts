// Settings > Webhooks (SPEC §5.53), for admins: the account's endpoints (`GET /webhooks`)
// with "Send test event", Edit (URL, events, description, enabled: `PATCH`), Rotate
// secret and Delete, a form to add one (a new signing secret shown once, as a passcode's
// value is), and the recent deliveries (webhook-deliveries.ts). Every string from the
// server goes in as text.
import { WEBHOOK_EVENT_TYPES } from '../../../core/webhook-events'
import { api, segment } from '../api'
import { $, h, hidden } from '../dom'
import { announce, run } from '../feedback'
import { actionForm, confirmThen, openRowForm } from '../components/action-form'
import { menuButton } from '../components/menu'
import { revealValue } from '../components/reveal'
import { cell, emptyRow, listTable } from '../components/table'
import type { IssuedWebhook, WebhookDeliveryAnswer, WebhookEndpoint, WebhookList } from '../wire'
import { deliveriesList } from './webhook-deliveries'

const COPY_NOW = 'Copy this signing secret now and give it to the receiver: you will not see it again.'

const eventsText = (endpoint: WebhookEndpoint) => (endpoint.events === 'all' ? 'All events' : endpoint.events.join(', '))

/** Checkboxes of the event types, those of `current` checked; none checked means every type. */
function eventsFieldset(current: WebhookEndpoint['events']): HTMLFieldSetElement {
  const chosen = new Set(current === 'all' ? [] : current)
  return h(
    'fieldset',
    { 'data-field': 'events', class: 'event-types' },
    h('legend', {}, 'Events (none checked: every event type)'),
    WEBHOOK_EVENT_TYPES.map((type) => h('label', {}, h('input', { type: 'checkbox', name: 'event', value: type, checked: chosen.has(type) }), type)),
  )
}

/** The checked event types, or `'all'` when none is checked. */
function readEvents(form: HTMLElement): WebhookEndpoint['events'] {
  const checked = [...form.querySelectorAll<HTMLInputElement>('input[name="event"]:checked')].map((input) => input.value)
  return checked.length === 0 ? 'all' : (checked as Exclude<WebhookEndpoint['events'], 'all'>)
}

const sameEvents = (a: WebhookEndpoint['events'], b: WebhookEndpoint['events']): boolean =>
  a === 'all' || b === 'all' ? a === b : a.length === b.length && a.every((type) => b.includes(type))

function stateText(endpoint: WebhookEndpoint): string {
  if (!endpoint.enabled) return endpoint.disabledReason === 'failing' ? 'Disabled: failing for 5 days' : 'Disabled'
  return endpoint.failingSince === null ? 'Enabled' : 'Enabled, failing'
}

/** Settings > Webhooks, for admins. */
export async function webhooksPage(): Promise<void> {
  // Members never get here: the server answers this page for admins only (pages.ts).
  const content = $<HTMLElement>(document, '#content')
  const endpointRows = h('tbody', {})
  const urls = new Map<string, string>()
  const deliveries = deliveriesList(urls)
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
        await deliveries.load()
        announce(`Test event queued for ${endpoint.url}.`)
      })
    })
    return button
  }

  /** The endpoint's row turned into its edit form: only what changed is sent. */
  const editForm = (endpoint: WebhookEndpoint, row: HTMLTableRowElement) => {
    const id = `webhook-edit-${endpoint.id}`
    const editUrl = h('input', {
      id: `${id}-url`,
      name: 'url',
      type: 'url',
      required: true,
      autocomplete: 'off',
      'data-field': 'url',
      value: endpoint.url,
    })
    const editDescription = h('input', {
      id: `${id}-description`,
      name: 'description',
      autocomplete: 'off',
      'data-field': 'description',
      value: endpoint.description,
    })
    const enabled = h('input', { id: `${id}-enabled`, name: 'enabled', type: 'checkbox', checked: endpoint.enabled, 'data-field': 'enabled' })
    const edit: HTMLFormElement = actionForm(
      { class: 'panel webhook-edit' },
      [
        h(
          'div',
          { class: 'fields' },
          h('div', { class: 'field' }, h('label', { for: editUrl.id }, 'URL'), editUrl),
          h('div', { class: 'field' }, h('label', { for: editDescription.id }, 'Description'), editDescription),
        ),
        eventsFieldset(endpoint.events),
        h('label', { class: 'checkbox' }, enabled, 'Enabled'),
      ],
      {
        submit: 'Save',
        onCancel: () => void load(endpoint.id),
        action: async () => {
          const patch: Record<string, unknown> = {}
          if (editUrl.value.trim() !== endpoint.url) patch.url = editUrl.value.trim()
          if (editDescription.value !== endpoint.description) patch.description = editDescription.value
          const events = readEvents(edit)
          if (!sameEvents(events, endpoint.events)) patch.events = events
          if (enabled.checked !== endpoint.enabled) patch.enabled = enabled.checked
          if (Object.keys(patch).length > 0) await api('PATCH', `/webhooks/${segment(endpoint.id)}`, patch)
          await load(endpoint.id)
          announce(Object.keys(patch).length > 0 ? 'Endpoint saved.' : 'Nothing changed.')
        },
      },
    )
    openRowForm(row, 4, `Edit ${endpoint.url}`, edit, editUrl)
  }

  const rotateSecret = (endpoint: WebhookEndpoint) =>
    confirmThen(
      null,
      {
        question: `Rotate the signing secret of ${endpoint.url}? A new secret is shown once; the current one keeps signing beside it for 24 hours, so the receiver can switch.`,
        confirm: 'Rotate secret',
      },
      async () => {
        const issued = await api<IssuedWebhook>('POST', `/webhooks/${segment(endpoint.id)}/rotate-secret`)
        await load(endpoint.id)
        revealValue(`New signing secret for ${issued.endpoint.url}`, issued.secret, COPY_NOW, () => focusRow(endpoint.id), 'Signing secret')
      },
    )

  const remove = (endpoint: WebhookEndpoint) =>
    confirmThen(
      null,
      {
        question: `Delete the endpoint ${endpoint.url}? Its deliveries go with it: the pending ones are never sent.`,
        confirm: 'Delete endpoint',
        danger: true,
      },
      async () => {
        await api('DELETE', `/webhooks/${segment(endpoint.id)}`)
        await load()
        add.focus()
        announce(`Endpoint ${endpoint.url} deleted.`)
      },
    )

  /** Puts the focus back on an endpoint's Edit button after its row was drawn again. */
  const focusRow = (endpointId: string) => {
    endpointRows.querySelector<HTMLElement>(`tr[data-key="${CSS.escape(endpointId)}"] [data-control="edit"]`)?.focus()
  }

  const endpointRow = (endpoint: WebhookEndpoint) => {
    const row = h('tr', { 'data-key': endpoint.id })
    row.append(
      cell('URL', h('span', { class: 'url' }, endpoint.url), endpoint.description ? h('div', { class: 'muted' }, endpoint.description) : null),
      cell('Events', eventsText(endpoint)),
      cell('State', stateText(endpoint)),
      cell(
        'Actions',
        h(
          'div',
          { class: 'actions row-actions' },
          endpoint.enabled ? sendTest(endpoint) : null,
          h('button', { type: 'button', 'data-control': 'edit', onclick: () => editForm(endpoint, row) }, 'Edit', hidden(` ${endpoint.url}`)),
          menuButton('More', ` actions for ${endpoint.url}`, [
            { text: 'Rotate secret', select: () => rotateSecret(endpoint) },
            { text: 'Delete', danger: true, select: () => remove(endpoint) },
          ]),
        ),
      ),
    )
    return row
  }

  /** Draws the endpoints again (and the deliveries, from their first page); the focus goes back to `focusOn`'s row. */
  async function load(focusOn?: string): Promise<void> {
    const { endpoints } = await api<WebhookList>('GET', '/webhooks')
    urls.clear()
    for (const endpoint of endpoints) urls.set(endpoint.id, endpoint.url)
    endpointRows.replaceChildren(...(endpoints.length === 0 ? [emptyRow(4, 'No endpoints yet.')] : endpoints.map(endpointRow)))
    if (focusOn !== undefined) focusRow(focusOn)
    await deliveries.load()
  }

  content.append(
    h('div', { class: 'actions' }, add),
    form,
    listTable(['URL', 'Events', 'State', 'Actions'], endpointRows, 'webhooks'),
    h('h2', { id: 'deliveries-title' }, 'Recent deliveries'),
    deliveries.element,
  )
  await run(null, () => load())
}
