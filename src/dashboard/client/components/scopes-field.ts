// Scopes (SPEC §5.48): every scope the host declares, or only those checked. Shown only
// when the host declares scopes (GET /scopes); a passcode's scope the host no longer
// declares stays checked, marked, so that an edit of something else keeps it.
import { $, h } from '../dom'
import type { DeclaredScope } from '../wire'

/**
 * The Scopes fieldset: "All scopes" (the default) or "Only the scopes checked" with a
 * checkbox per declared scope (its name, then its description); null when the host
 * declares none. `current` is the passcode's `scopes` (null: all).
 */
export function scopesFieldset(
  id: string,
  declared: readonly DeclaredScope[],
  current: readonly string[] | null = null,
  unknown: readonly string[] = [],
): HTMLFieldSetElement | null {
  if (declared.length === 0) return null
  const chosen = new Set(current ?? [])
  const all = h('input', { type: 'radio', name: 'scopes-kind', value: 'all', checked: current === null })
  const some = h('input', { type: 'radio', name: 'scopes-kind', value: 'some', checked: current !== null })
  const boxes = [
    ...declared.map(({ name, description }) => ({ name, text: description })),
    ...unknown.map((name) => ({ name, text: '(no longer declared: grants nothing)' })),
  ].map(({ name, text }) =>
    h(
      'label',
      { class: 'choice' },
      h('input', { type: 'checkbox', name: 'scope', value: name, checked: chosen.has(name), disabled: current === null }),
      // One text, so that it wraps between words and the name stays whole.
      h('span', {}, h('code', {}, name), text ? ` ${text}` : null),
    ),
  )
  const list = h('div', { class: 'choices', id: `${id}-scopes`, role: 'group', 'aria-label': 'Scopes it grants' }, boxes)
  const update = () => {
    for (const box of list.querySelectorAll('input')) box.disabled = all.checked
  }
  for (const radio of [all, some]) radio.addEventListener('change', update)
  return h(
    'fieldset',
    { 'data-field': 'scopes', class: 'scopes-field' },
    h('legend', {}, 'Scopes'),
    h('label', {}, all, 'All scopes, also those declared later'),
    h('label', {}, some, 'Only the scopes checked'),
    list,
  )
}

/** The scopes a form says, as the API takes them: null for all, else the checked names (maybe none). Undefined without the fieldset. */
export function readScopes(form: HTMLElement): string[] | null | undefined {
  if (!form.querySelector('input[name="scopes-kind"]')) return undefined
  if ($(form, 'input[name="scopes-kind"][value="all"]').checked) return null
  return [...form.querySelectorAll<HTMLInputElement>('input[name="scope"]:checked')].map((box) => box.value).sort()
}
