// Address ranges (SPEC §5.49): the CIDR ranges a passcode may be used from, one a line;
// empty for any address. The API checks each range and names the line's range it refuses.
import { MAX_ALLOWED_ADDRESSES } from '../../../core/restrictions'
import { $, h } from '../dom'

/** A textarea of CIDR ranges, one per line, with what empty means. */
export function addressField(id: string, current: readonly string[] = []): HTMLElement {
  const hint = `${id}-hint`
  return h(
    'div',
    { class: 'field wide-field' },
    h('label', { for: id }, 'Allowed addresses (CIDR ranges, one per line)'),
    h(
      'textarea',
      {
        id,
        name: 'allowedAddresses',
        rows: Math.min(10, Math.max(3, current.length + 1)),
        spellcheck: 'false',
        autocapitalize: 'none',
        autocomplete: 'off',
        class: 'mono',
        'aria-describedby': hint,
        'data-field': 'allowedAddresses',
      },
      current.join('\n'),
    ),
    h('p', { class: 'hint', id: hint }, `Such as 203.0.113.0/24 or 2001:db8::/32, at most ${MAX_ALLOWED_ADDRESSES}. Empty: any address.`),
  )
}

/** The ranges typed, one per non-empty line, trimmed (the API checks each). */
export function readAddresses(form: HTMLElement): string[] {
  return $<HTMLTextAreaElement>(form, 'textarea[name="allowedAddresses"]')
    .value.split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
}
