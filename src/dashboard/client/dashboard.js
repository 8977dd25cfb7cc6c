// passcode-auth dashboard: the Settings > Passcodes, Users and own-passcode pages.
// Plain browser JavaScript, no build step, no framework. Every string from the
// server is put into the page as text (textContent, attribute values), never as
// HTML, so a passcode named <img src=x onerror=alert(1)> shows as those characters.
// The CSP of the page allows this file and nothing inline.

const main = document.getElementById('main')
const API = main.dataset.api
const ME = main.dataset.userId
const CAN_MANAGE_PASSCODES = main.dataset.canManagePasscodes === 'true'
const CAN_MANAGE_USERS = main.dataset.canManageUsers === 'true'

// ---------------------------------------------------------------- small helpers

/** Creates an element; strings among the children become text nodes. */
function h(tag, attributes, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value)
    else if (value === true) element.setAttribute(name, '')
    else element.setAttribute(name, String(value))
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return element
}

class ApiError extends Error {
  constructor(status, error) {
    super(error && typeof error.message === 'string' ? error.message : `The server answered ${status}`)
    this.status = status
    this.code = error && error.code
    this.field = error && error.field
  }
}

/** An input the page refuses before sending anything: shown as the API's field errors are. */
class FieldError extends Error {
  constructor(field, message) {
    super(message)
    this.field = field
  }
}

// A user ID as the server checks it (SPEC §5.4, isVisibleAscii in src/core/rules.ts):
// 1 to 256 visible ASCII characters. The message is the API's own for it.
const USER_ID = /^[\x21-\x7E]{1,256}$/
const USER_ID_MESSAGE = 'Invalid userId: must be 1 to 256 visible ASCII characters'

async function api(method, path, body) {
  const init = { method, headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' }
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  const response = await fetch(API + path, init)
  if (response.status === 204) return null
  const data = await response.json().catch(() => null)
  if (!response.ok) throw new ApiError(response.status, data && data.error)
  return data
}

const notice = document.getElementById('notice')
const announcer = document.getElementById('announcer')

function showError(error) {
  const message = error instanceof ApiError || error instanceof FieldError ? error.message : 'Something went wrong. Try again.'
  notice.textContent = error instanceof ApiError && error.status === 401 ? 'Your session has ended. Sign in again.' : message
}
function clearError() {
  notice.textContent = ''
}
function announce(text) {
  announcer.textContent = ''
  // A fresh text node makes screen readers read the same message twice in a row too.
  setTimeout(() => (announcer.textContent = text), 50)
}

let fieldErrorCount = 0
/** Marks the field invalid and shows `message` under it, as its description; moves the focus to it. */
function showFieldError(target, message) {
  const id = `field-error-${++fieldErrorCount}`
  ;(target.closest('.field, fieldset') || target.parentElement).append(h('p', { class: 'field-error', id }, message))
  target.setAttribute('aria-invalid', 'true')
  target.setAttribute('aria-describedby', id)
  target.focus()
}
function clearFieldErrors(form) {
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid')
    input.removeAttribute('aria-describedby')
  }
  for (const note of form.querySelectorAll('.field-error')) note.remove()
}

/**
 * Runs an action from a button or form, with the button disabled meanwhile. An error
 * shows in the notice; one that names a field of the form (from the API, or a
 * FieldError the page raised before sending) shows under that field too.
 */
async function run(button, action, form) {
  clearError()
  if (form) clearFieldErrors(form)
  if (button) button.disabled = true
  try {
    await action()
  } catch (error) {
    showError(error)
    const field = (error instanceof ApiError || error instanceof FieldError) && error.field
    const target = form && field ? form.querySelector(`[data-field="${CSS.escape(field.split('.')[0])}"]`) : null
    if (target) showFieldError(target, error.message)
  } finally {
    if (button && button.isConnected) button.disabled = false
  }
}

const STATUS_LABELS = { active: 'Active', expiring_soon: 'Expiring soon', expired: 'Expired', revoked: 'Revoked', disabled: 'Disabled' }
function badge(status) {
  return h('span', { class: `badge ${status || 'none'}` }, STATUS_LABELS[status] || 'None')
}
/** A date as YYYY-MM-DD in UTC: the same for everyone, whatever their time zone. */
function day(iso) {
  return iso ? iso.slice(0, 10) : ''
}
function cell(label, ...children) {
  return h('td', { 'data-label': label }, ...children)
}

/**
 * A form that ends with its actions: the submit button (primary unless `primary` is
 * false) and, when `onCancel` is given, Cancel. Submitting runs `action` through run(),
 * so errors show and point at their field.
 */
function actionForm(attributes, children, { submit, primary = true, onCancel, action }) {
  const form = h(
    'form',
    { ...attributes, novalidate: true },
    children,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: primary ? 'primary' : undefined }, submit),
      onCancel ? h('button', { type: 'button', onclick: onCancel }, 'Cancel') : null,
    ),
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    run(form.querySelector('button[type="submit"]'), action, form)
  })
  return form
}

/** A button that asks `question` in the browser's confirm dialog, then runs `action`. */
function confirmButton(text, { label, danger = false, question, action }) {
  const onclick = (event) => {
    if (window.confirm(question)) run(event.currentTarget, action)
  }
  return h('button', { type: 'button', class: danger ? 'danger' : undefined, 'aria-label': label, onclick }, text)
}

/** Puts a form in place of a table row's cells and moves the focus into it. */
function openRowForm(row, columnCount, form, focus) {
  row.replaceChildren(h('td', { colspan: columnCount }, form))
  row.className = 'row-form'
  focus.focus()
}

// ---------------------------------------------------------------- value shown once

const revealSlot = document.getElementById('reveal-slot')

/** Shows a passcode value once, with a copy button; Done removes it from the page. */
function revealValue(title, value, warning) {
  revealSlot.replaceChildren()
  const input = h('input', { class: 'value', readonly: true, value, 'aria-label': 'Passcode value', spellcheck: 'false', autocomplete: 'off' })
  const copied = h('span', { role: 'status', class: 'muted' })
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(input.value)
          copied.textContent = 'Copied.'
        } catch {
          input.select()
          copied.textContent = 'Press Ctrl+C (⌘C on a Mac) to copy.'
        }
      },
    },
    'Copy',
  )
  const done = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        revealSlot.replaceChildren()
        main.querySelector('h2').focus()
      },
    },
    'Done',
  )
  const panel = h(
    'section',
    { class: 'panel reveal', role: 'region', 'aria-labelledby': 'reveal-title' },
    h('h3', { id: 'reveal-title', tabindex: '-1' }, title),
    warning ? h('p', { class: 'warning' }, warning) : null,
    h('div', { class: 'value-row' }, input, copy, done, copied),
  )
  revealSlot.append(panel)
  input.focus()
  input.select()
}

// ---------------------------------------------------------------- Passcodes page

function expiryFieldset(idPrefix, current) {
  const forever = current === 'forever'
  const days = h('input', {
    type: 'number',
    name: 'days',
    id: `${idPrefix}-days`,
    min: 1,
    max: 3650,
    step: 1,
    value: typeof current === 'number' ? current : 90,
    inputmode: 'numeric',
    'aria-label': 'Number of days',
    'data-field': 'expiry',
    disabled: forever,
    required: true,
  })
  const radios = [
    h('input', { type: 'radio', name: 'expiry-kind', value: 'days', checked: !forever }),
    h('input', { type: 'radio', name: 'expiry-kind', value: 'forever', checked: forever }),
  ]
  for (const radio of radios) radio.addEventListener('change', () => (days.disabled = radios[1].checked))
  return h(
    'fieldset',
    {},
    h('legend', {}, 'Expiry'),
    h('label', {}, radios[0], 'Days'),
    days,
    h('label', {}, radios[1], 'Forever'),
  )
}

function readExpiry(form) {
  if (form.querySelector('input[name="expiry-kind"][value="forever"]').checked) return 'forever'
  const text = form.querySelector('input[name="days"]').value.trim()
  return /^\d+$/.test(text) ? Number(text) : text
}

/** Checkboxes of the whitelisted partners; none checked means "every partner". */
function partnersFieldset(names, current) {
  if (names.length === 0) return null
  const bound = new Set(current || [])
  return h(
    'fieldset',
    { 'data-field': 'partners' },
    h('legend', {}, 'Partners (none checked: every whitelisted partner)'),
    names.map((name) => h('label', {}, h('input', { type: 'checkbox', name: 'partner', value: name, checked: bound.has(name) }), name)),
  )
}

/** The checked partners, or null when none is checked (unbound). */
function readPartners(form) {
  const checked = [...form.querySelectorAll('input[name="partner"]:checked')].map((input) => input.value)
  return checked.length === 0 ? null : checked
}

function partnersCell(passcode) {
  if (!passcode.partners) return h('span', { class: 'muted' }, 'Any')
  const stale = passcode.partnersNotWhitelisted || []
  return [passcode.partners.join(', '), stale.length > 0 ? h('span', { class: 'muted' }, ` (no longer whitelisted: ${stale.join(', ')})`) : null]
}

async function passcodesPage() {
  const section = document.getElementById('content')
  const rows = h('tbody', {})
  let createForm = null
  const { partners: partnerNames } = await api('GET', '/partners').catch(() => ({ partners: [] }))
  const columns = ['Name', 'Status', 'Passcode', 'Expires', 'Partners', 'Last used']
  if (CAN_MANAGE_PASSCODES) columns.push('Actions')
  const table = h(
    'table',
    { 'aria-labelledby': 'page-title' },
    h('thead', {}, h('tr', {}, columns.map((name) => h('th', { scope: 'col' }, name)))),
    rows,
  )

  if (CAN_MANAGE_PASSCODES) {
    const name = h('input', { id: 'create-name', name: 'name', required: true, maxlength: 64, autocomplete: 'off', 'data-field': 'name' })
    createForm = actionForm(
      { class: 'panel', id: 'create-form', hidden: true, 'aria-labelledby': 'create-title' },
      [
        h('h3', { id: 'create-title' }, 'New passcode'),
        h(
          'div',
          { class: 'fields' },
          h('div', { class: 'field' }, h('label', { for: 'create-name' }, 'Passcode Name'), name),
          expiryFieldset('create'),
          partnersFieldset(partnerNames),
        ),
      ],
      {
        submit: 'Create & View',
        onCancel: () => toggleCreate(false),
        action: async () => {
          const input = { name: name.value, expiry: readExpiry(createForm) }
          const bound = readPartners(createForm)
          if (bound) input.partners = bound
          const created = await api('POST', '/passcodes', input)
          createForm.reset()
          toggleCreate(false)
          await load()
          revealValue(`Passcode “${created.passcode.name}” created`, created.value, 'Copy this passcode now: you will not see it again.')
        },
      },
    )
    const newButton = document.getElementById('new-passcode')
    newButton.hidden = false
    newButton.addEventListener('click', () => toggleCreate(createForm.hidden))
    function toggleCreate(open) {
      createForm.hidden = !open
      newButton.setAttribute('aria-expanded', String(open))
      if (open) name.focus()
      else newButton.focus()
    }
    section.append(createForm)
  } else {
    section.append(
      h('p', { class: 'readonly-note' }, 'You can see this account’s passcodes. Only admins and users with write access to User Settings change them.'),
    )
  }
  section.append(table)

  function editRow(passcode, row) {
    const name = h('input', { name: 'name', value: passcode.name, maxlength: 64, 'aria-label': 'Passcode Name', 'data-field': 'name' })
    const keepExpiry = h('input', { type: 'checkbox', name: 'keep-expiry', checked: true })
    const expiry = expiryFieldset(`edit-${passcode.id}`, passcode.expiry)
    expiry.disabled = true
    keepExpiry.addEventListener('change', () => (expiry.disabled = keepExpiry.checked))
    const form = actionForm(
      { class: 'fields', 'aria-label': `Edit ${passcode.name}` },
      [
        h('div', { class: 'field' }, h('label', {}, 'Passcode Name'), name),
        h('label', {}, keepExpiry, 'Keep the current expiry'),
        expiry,
        partnersFieldset(partnerNames, passcode.partners),
      ],
      {
        submit: 'Save',
        onCancel: () => load(),
        action: async () => {
          const patch = {}
          if (name.value.trim() !== passcode.name) patch.name = name.value
          if (!keepExpiry.checked) patch.expiry = readExpiry(form)
          const bound = partnerNames.length > 0 ? readPartners(form) : passcode.partners
          if (JSON.stringify(bound) !== JSON.stringify(passcode.partners || null)) patch.partners = bound
          if (Object.keys(patch).length === 0) return load()
          await api('PATCH', `/passcodes/${encodeURIComponent(passcode.id)}`, patch)
          await load()
          announce('Passcode saved.')
        },
      },
    )
    openRowForm(row, columns.length, form, name)
  }

  function rotateRow(passcode, row) {
    const minutes = h('input', { type: 'number', name: 'overlapMinutes', min: 0, max: 10080, value: 60, 'data-field': 'overlapMinutes', id: `overlap-${passcode.id}` })
    const form = actionForm(
      { class: 'fields', 'aria-label': `Rotate ${passcode.name}` },
      h('div', { class: 'field' }, h('label', { for: `overlap-${passcode.id}` }, 'Old value keeps working for (minutes)'), minutes),
      {
        submit: 'Rotate & View',
        onCancel: () => load(),
        action: async () => {
          const rotated = await api('POST', `/passcodes/${encodeURIComponent(passcode.id)}/rotate`, { overlapMinutes: Number(minutes.value) })
          await load()
          revealValue(`New value for “${rotated.passcode.name}”`, rotated.value, 'Copy this passcode now: you will not see it again.')
        },
      },
    )
    openRowForm(row, columns.length, form, minutes)
  }

  function passcodeRow(passcode) {
    const row = h(
      'tr',
      {},
      // The description under the name, as text (newlines kept by CSS); dir="auto" keeps its direction to itself.
      h(
        'td',
        { class: 'name', 'data-label': 'Name' },
        passcode.description ? h('div', {}, passcode.name, h('p', { class: 'description', dir: 'auto' }, passcode.description)) : passcode.name,
      ),
      cell('Status', badge(passcode.status)),
      cell('Passcode', h('code', {}, passcode.hint)),
      cell('Expires', passcode.expiresAt ? day(passcode.expiresAt) : 'Never'),
      cell('Partners', partnersCell(passcode)),
      cell(
        'Last used',
        passcode.lastUsedAt ? `${day(passcode.lastUsedAt)}${passcode.lastUsedPartner ? ` (${passcode.lastUsedPartner})` : ''}` : h('span', { class: 'muted' }, 'Never'),
      ),
    )
    if (CAN_MANAGE_PASSCODES) {
      const label = (verb) => `${verb} ${passcode.name}`
      row.append(
        h(
          'td',
          { class: 'actions-cell', 'data-label': 'Actions' },
          h(
            'div',
            { class: 'actions' },
            h('button', { type: 'button', 'aria-label': label('Edit'), onclick: () => editRow(passcode, row) }, 'Edit'),
            h('button', { type: 'button', 'aria-label': label('Rotate'), onclick: () => rotateRow(passcode, row) }, 'Rotate'),
            confirmButton('Delete', {
              label: label('Delete'),
              danger: true,
              question: `Delete the passcode “${passcode.name}”? Calls with it stop working at once.`,
              action: async () => {
                await api('DELETE', `/passcodes/${encodeURIComponent(passcode.id)}`)
                await load()
                announce('Passcode deleted.')
              },
            }),
          ),
        ),
      )
    }
    return row
  }

  async function load() {
    const { passcodes } = await api('GET', '/passcodes')
    rows.replaceChildren(
      ...(passcodes.length === 0
        ? [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, 'No passcodes yet.'))]
        : passcodes.map(passcodeRow)),
    )
  }
  await run(null, load)
}

// ---------------------------------------------------------------- Users page

function validityFieldset(idPrefix) {
  const days = h('input', {
    type: 'number',
    name: 'validity-days',
    id: `${idPrefix}-days`,
    min: 1,
    max: 365,
    step: 1,
    value: 90,
    inputmode: 'numeric',
    'aria-label': 'Number of days',
    'data-field': 'validity',
  })
  const finite = h('input', { type: 'radio', name: 'validity-type', value: 'finite', checked: true })
  const infinite = h('input', { type: 'radio', name: 'validity-type', value: 'infinite' })
  for (const radio of [finite, infinite]) radio.addEventListener('change', () => (days.disabled = infinite.checked))
  return h('fieldset', {}, h('legend', {}, 'Validity'), h('label', {}, finite, 'Finite'), days, h('label', {}, infinite, 'Infinite'))
}

function readValidity(form) {
  if (form.querySelector('input[name="validity-type"][value="infinite"]').checked) return { type: 'infinite' }
  const text = form.querySelector('input[name="validity-days"]').value.trim()
  return { type: 'finite', days: /^\d+$/.test(text) ? Number(text) : text }
}

async function usersPage() {
  const section = document.getElementById('content')
  const rows = h('tbody', {})
  const columns = ['User', 'Passcode', 'Validity', 'Expires', 'Last used']
  if (CAN_MANAGE_USERS) columns.push('Actions')

  const accountSection = h('section', { class: 'panel', 'aria-labelledby': 'account-title' }, h('h3', { id: 'account-title' }, 'Accepted passcodes'))
  section.append(accountSection)

  if (CAN_MANAGE_USERS) {
    const userId = h('input', {
      id: 'grant-user-id',
      name: 'userId',
      required: true,
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      'data-field': 'userId',
    })
    const grantForm = actionForm(
      { class: 'panel', 'aria-labelledby': 'grant-title' },
      [
        h('h3', { id: 'grant-title' }, 'Grant a user passcode'),
        h('div', { class: 'fields' }, h('div', { class: 'field' }, h('label', { for: 'grant-user-id' }, 'User ID'), userId), validityFieldset('grant')),
      ],
      {
        submit: 'Grant Passcode',
        action: async () => {
          const id = userId.value.trim()
          // An empty ID would be PUT /users//passcode: refused here, before anything is sent.
          if (!USER_ID.test(id)) throw new FieldError('userId', USER_ID_MESSAGE)
          await api('PUT', `/users/${encodeURIComponent(id)}/passcode`, { validity: readValidity(grantForm) })
          announce(`Passcode granted to ${id}.`)
          grantForm.reset()
          await load()
        },
      },
    )
    section.append(grantForm)
  } else {
    section.append(h('p', { class: 'readonly-note' }, 'Only admins grant, reset or revoke user passcodes.'))
  }
  section.append(
    h('table', { 'aria-labelledby': 'page-title' }, h('thead', {}, h('tr', {}, columns.map((name) => h('th', { scope: 'col' }, name)))), rows),
  )

  function grantRow(user, row) {
    const form = actionForm({ class: 'fields', 'aria-label': `Grant a passcode to ${user.name || user.id}` }, validityFieldset(`grant-${user.id}`), {
      submit: 'Grant Passcode',
      onCancel: () => load(),
      action: async () => {
        await api('PUT', `/users/${encodeURIComponent(user.id)}/passcode`, { validity: readValidity(form) })
        await load()
        announce('Passcode granted.')
      },
    })
    openRowForm(row, columns.length, form, form.querySelector('input'))
  }

  function userRow(user) {
    const passcode = user.passcode
    const live = passcode && passcode.status !== 'revoked' && passcode.status !== 'expired'
    const who = user.name ? [user.name, ' ', h('span', { class: 'muted mono' }, user.id)] : [h('span', { class: 'mono' }, user.id)]
    const row = h(
      'tr',
      {},
      // One element in the cell: on a phone the cell lays its label and content side by side.
      h('td', { class: 'name', 'data-label': 'User' }, h('div', {}, ...who, user.email ? [h('br'), h('span', { class: 'muted' }, user.email)] : null)),
      cell('Passcode', passcode ? [badge(passcode.status), ' ', h('code', {}, passcode.hint)] : badge(null)),
      cell('Validity', passcode ? (passcode.validity.type === 'infinite' ? 'Infinite' : `${passcode.validity.days} days`) : ''),
      cell('Expires', passcode && passcode.status !== 'revoked' ? day(passcode.expiresAt) : ''),
      cell('Last used', passcode && passcode.lastUsedAt ? day(passcode.lastUsedAt) : h('span', { class: 'muted' }, passcode ? 'Never' : '')),
    )
    if (CAN_MANAGE_USERS) {
      const label = (verb) => `${verb} for ${user.name || user.id}`
      const actions = h('div', { class: 'actions' })
      if (live) {
        actions.append(
          confirmButton('Reset Passcode', {
            label: label('Reset Passcode'),
            question: `Reset the passcode of ${user.name || user.id}? The current value stops working at once.`,
            action: async () => {
              await api('POST', `/users/${encodeURIComponent(user.id)}/passcode/reset`)
              await load()
              announce('Passcode reset. The user sees the new value on their Settings page.')
            },
          }),
          confirmButton('Revoke Passcode', {
            label: label('Revoke Passcode'),
            danger: true,
            question: `Revoke the passcode of ${user.name || user.id}? Calls with it stop working at once.`,
            action: async () => {
              await api('DELETE', `/users/${encodeURIComponent(user.id)}/passcode`)
              await load()
              announce('Passcode revoked.')
            },
          }),
        )
      } else {
        actions.append(h('button', { type: 'button', 'aria-label': label('Grant Passcode'), onclick: () => grantRow(user, row) }, 'Grant Passcode'))
      }
      row.append(h('td', { class: 'actions-cell', 'data-label': 'Actions' }, actions))
    }
    return row
  }

  async function loadAccount() {
    const { account } = await api('GET', '/account')
    const choices = [
      ['account', 'Account passcodes only'],
      ['user', 'User passcodes only'],
      ['both', 'Both'],
    ]
    if (!CAN_MANAGE_USERS) {
      const current = choices.find(([value]) => value === account.acceptedPasscodes)
      accountSection.replaceChildren(accountSection.firstChild, h('p', {}, 'This account accepts: ', h('strong', {}, current ? current[1] : account.acceptedPasscodes)))
      return
    }
    const select = h(
      'select',
      { id: 'accepted-passcodes', name: 'acceptedPasscodes', 'data-field': 'acceptedPasscodes' },
      choices.map(([value, text]) => h('option', { value, selected: value === account.acceptedPasscodes }, text)),
    )
    const form = actionForm({ class: 'fields' }, h('div', { class: 'field' }, h('label', { for: 'accepted-passcodes' }, 'The API accepts'), select), {
      submit: 'Save',
      primary: false,
      action: async () => {
        await api('PUT', '/account', { acceptedPasscodes: select.value })
        announce('Saved.')
      },
    })
    accountSection.replaceChildren(accountSection.firstChild, form)
  }

  async function load() {
    const { users } = await api('GET', '/users')
    rows.replaceChildren(
      ...(users.length === 0
        ? [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, 'No user passcodes yet.'))]
        : users.map(userRow)),
    )
  }
  await run(null, async () => {
    await Promise.all([loadAccount(), load()])
  })
}

// ---------------------------------------------------------------- the user's own Settings

async function mePage() {
  const section = document.getElementById('content')
  const details = h('div', {})
  section.append(details)

  async function load() {
    let passcode = null
    try {
      ;({ passcode } = await api('GET', `/users/${encodeURIComponent(ME)}/passcode`))
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
    }
    if (!passcode || passcode.status === 'revoked') {
      details.replaceChildren(
        h('p', {}, passcode ? 'Your passcode was revoked. ' : 'You have no passcode. ', 'An admin of this account can grant you one.'),
      )
      return
    }
    const show = h(
      'button',
      {
        type: 'button',
        class: 'primary',
        onclick: (event) =>
          run(event.currentTarget, async () => {
            const revealed = await api('GET', '/me/passcode')
            revealValue('Your passcode', revealed.value, 'Keep it secret: it calls the API as you. Click Done to hide it.')
          }),
      },
      'Show my passcode',
    )
    details.replaceChildren(
      h(
        'dl',
        {},
        h('dt', {}, 'Status'),
        h('dd', {}, badge(passcode.status)),
        h('dt', {}, 'Passcode'),
        h('dd', {}, h('code', {}, passcode.hint)),
        h('dt', {}, 'Validity'),
        h('dd', {}, passcode.validity.type === 'infinite' ? 'Infinite' : `${passcode.validity.days} days`),
        h('dt', {}, 'Expires'),
        h('dd', {}, day(passcode.expiresAt)),
      ),
      passcode.status === 'expired' ? h('p', {}, 'It has expired. Ask an admin to reset it.') : show,
    )
  }
  await run(null, load)
}

const pages = { passcodes: passcodesPage, users: usersPage, me: mePage }
pages[main.dataset.page]?.()
