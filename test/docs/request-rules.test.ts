import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MANAGEMENT_OPENAPI_FILE } from '../../scripts/management-openapi'
import { checkPasscodeDescription, checkPasscodeName, isPartnerNameLookable } from '../../src/core/rules'

/**
 * The text rules of docs/management-openapi.json's request schemas (a `maxLength` and a
 * `pattern`, checked here by Ajv as a client would) say what the server's checks say
 * (core/rules.ts), for text that Unicode NFC leaves as it is: whatever the schema accepts,
 * the server takes, and whatever the server takes within the `maxLength`, the schema
 * accepts. Text that NFC changes is the rule the document names (`normalisedLength`).
 */

type Json = Record<string, any>

const document = JSON.parse(readFileSync(MANAGEMENT_OPENAPI_FILE, 'utf8')) as Json
const create = document.components.schemas.CreatePasscode.properties as Json
const ajv = new Ajv2020({ strict: true })
const accepts = (schema: Json) => {
  const { description: _prose, ...rules } = schema
  const check = ajv.compile({ ...rules, type: 'string' })
  return (text: string) => check(text)
}

// The characters the rules are about, and plain ones: spaces of several kinds, line breaks,
// controls (C0, DEL, C1, NUL), format characters (zero-width, bidi, BOM, soft hyphen),
// separators, a lone surrogate, variation selectors, a Hangul filler, a combining mark,
// a letter outside the BMP.
const CHARACTERS = [
  ...'aZ9 -_.é',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u0000',
  '\u0007',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u00a0',
  '\u00ad',
  '\u200b',
  '\u200d',
  '\u202e',
  '\u2028',
  '\u2029',
  '\u3000',
  '\ufeff',
  '\ud800',
  '\ufe0f',
  '\u3164',
  '\u0301',
  '\u{1f511}',
]

const text = (maxLength: number) => fc.array(fc.constantFrom(...CHARACTERS), { maxLength }).map((characters) => characters.join(''))
// Any code point, lone surrogates included (fast-check's own full-Unicode strings take seconds to set up).
const anyText = (maxLength: number) =>
  fc
    .array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength })
    .map((codePoints) => codePoints.map((codePoint) => String.fromCodePoint(codePoint)).join(''))
const length = (value: string) => [...value].length
const nfcStable = (value: string) => value.isWellFormed() && value.normalize('NFC') === value

function agree(schema: Json, server: (value: string) => boolean, maxLength: number, examples: string[]): void {
  const schemaAccepts = accepts(schema)
  const check = (value: string) => {
    if (value.isWellFormed() && !nfcStable(value)) return
    const taken = server(value)
    if (schemaAccepts(value)) expect(taken, JSON.stringify(value)).toBe(true)
    else if (length(value) <= maxLength) expect(taken, JSON.stringify(value)).toBe(false)
  }
  for (const example of examples) check(example)
  fc.assert(fc.property(text(maxLength + 4), check), { numRuns: 1500 })
  fc.assert(fc.property(anyText(maxLength + 4), check), { numRuns: 500 })
}

describe("the request schemas' text rules agree with the server's", () => {
  it('name: 1 to 64 characters once trimmed, no control or invisible character', () => {
    expect(create.name.maxLength).toBe(64)
    agree(create.name, (value) => checkPasscodeName(value).ok, 64, [
      'n'.repeat(64),
      'n'.repeat(65),
      ' x ',
      '   ',
      'Acme\u200b',
      'Tab\there',
      '\ufeffAcme\u2028',
    ])
  })

  it('description: up to 500 characters once trimmed, newlines but no other control character', () => {
    const description = create.description as Json
    expect(description.maxLength).toBe(500)
    agree(description, (value) => checkPasscodeDescription(value).ok, 500, ['d'.repeat(500), 'd'.repeat(501), 'a\r\nb', '\ta', 'a\tb', '', '\ud800'])
  })

  it('partner: up to 128 characters once trimmed, not blank, no control character', () => {
    const partner = (create.partners as Json).anyOf[0].items as Json
    expect(partner.maxLength).toBe(128)
    agree(partner, (value) => value.trim() !== '' && isPartnerNameLookable(value.trim()), 128, [
      'p'.repeat(128),
      'p'.repeat(129),
      '  ',
      'Ac\u0000me',
      ' Acme\t',
    ])
  })
})
