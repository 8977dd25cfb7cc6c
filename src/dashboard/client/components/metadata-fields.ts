// Metadata and tags (SPEC §5.51): the host's own JSON object about a passcode, returned
// on the principal, and the tags that find it in lists. The API checks the object's
// size and each tag; the page only turns the text into JSON and a list.
import { MAX_METADATA_BYTES, MAX_TAGS } from '../../../core/restrictions'
import { FieldError } from '../api'
import { $, h } from '../dom'

/** A JSON textarea for the metadata object; empty for none. */
export function metadataField(id: string, current: Readonly<Record<string, unknown>> | null = null): HTMLElement {
  const hint = `${id}-hint`
  const text = current === null ? '' : JSON.stringify(current, null, 2)
  return h(
    'div',
    { class: 'field wide-field' },
    h('label', { for: id }, 'Metadata (JSON object, optional)'),
    h(
      'textarea',
      {
        id,
        name: 'metadata',
        rows: Math.min(12, Math.max(3, text.split('\n').length)),
        spellcheck: 'false',
        class: 'mono',
        'aria-describedby': hint,
        'data-field': 'metadata',
      },
      text,
    ),
    h(
      'p',
      { class: 'hint', id: hint },
      `Such as {"plan": "pro"}, at most ${MAX_METADATA_BYTES} bytes as JSON; your API gets it with each request. Empty: none.`,
    ),
  )
}

/**
 * The metadata a form says: null when empty, else the parsed JSON (the API refuses what
 * is not an object, or too large, at the field). Text that is not JSON is refused here,
 * at the field, before anything is sent.
 */
export function readMetadata(form: HTMLElement): unknown {
  const text = $<HTMLTextAreaElement>(form, 'textarea[name="metadata"]').value.trim()
  if (text === '') return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new FieldError('metadata', 'Invalid metadata: must be JSON, such as {"plan": "pro"}')
  }
}

/** Tags, separated by commas or spaces. */
export function tagsField(id: string, current: readonly string[] = []): HTMLElement {
  const hint = `${id}-hint`
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, 'Tags (optional)'),
    h('input', {
      id,
      name: 'tags',
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      value: current.join(', '),
      'aria-describedby': hint,
      'data-field': 'tags',
    }),
    h('p', { class: 'hint', id: hint }, `Up to ${MAX_TAGS}, separated by commas or spaces, such as billing, eu.`),
  )
}

/** The tags typed, in order, each once (the API lower-cases and checks each). */
export function readTags(form: HTMLElement): string[] {
  return [
    ...new Set(
      $(form, 'input[name="tags"]')
        .value.split(/[\s,]+/u)
        .filter((tag) => tag !== ''),
    ),
  ]
}
