/**
 * Escapes the five characters that matter in HTML text and attribute values. Host
 * templates should pass every name through it, as the default templates do.
 *
 * @example
 * ```ts
 * escapeHtml('<Acme & "Co">') // '&lt;Acme &amp; &quot;Co&quot;&gt;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character]!)
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
