/**
 * Just enough MIME parsing for the tests to read what nodemailer sent: headers
 * (unfolded, RFC 2047 words decoded), multipart bodies, quoted-printable and base64.
 */

export interface MimePart {
  /** Header names lower-cased; values unfolded and decoded. */
  readonly headers: ReadonlyMap<string, string>
  /** The decoded body of a leaf part; '' for a multipart container. */
  readonly body: string
  readonly parts: readonly MimePart[]
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    )
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = []
  const source = text.replace(/=\r?\n/g, '')
  for (let index = 0; index < source.length; index += 1) {
    const character = source[index]!
    if (character === '=' && /^[0-9A-Fa-f]{2}$/.test(source.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(source.slice(index + 1, index + 3), 16))
      index += 2
    } else {
      bytes.push(...Buffer.from(character, 'utf8'))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>()
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ')
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()))
  }
  return headers
}

/** Parses a raw RFC 5322 message (or a MIME part). */
export function parseMime(raw: string): MimePart {
  const split = raw.search(/\r?\n\r?\n/)
  const headerBlock = split === -1 ? raw : raw.slice(0, split)
  const body = split === -1 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '')
  const headers = parseHeaders(headerBlock)
  const type = headers.get('content-type') ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
  if (type.toLowerCase().startsWith('multipart/') && boundary !== undefined) {
    const sections = body.split(`--${boundary}`).slice(1)
    const parts = sections.filter((section) => !section.startsWith('--')).map((section) => parseMime(section.replace(/^\r?\n/, '')))
    return { headers, body: '', parts }
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()
  const decoded =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body
  return { headers, body: decoded, parts: [] }
}

/** Every leaf part, depth first. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves)
}

/** The decoded body of the first leaf whose content type starts with `type`. */
export function bodyOf(message: MimePart, type: 'text/plain' | 'text/html'): string {
  const leaf = leaves(message).find((part) => (part.headers.get('content-type') ?? '').toLowerCase().startsWith(type))
  if (leaf === undefined) throw new Error(`no ${type} part`)
  return leaf.body
}
