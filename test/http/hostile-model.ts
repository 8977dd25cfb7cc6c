import fc from 'fast-check'
import type { HttpFixture } from './fixture'

/**
 * Hostile requests for the adapters, and what each must be answered (the oracle).
 * Header values and the request target are byte strings: each character is one byte
 * (latin1), so `'\xe9'` is the single byte 0xE9, as on the wire.
 */

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const
export type Method = (typeof METHODS)[number]

/** Which credentials the request carries, before hostile decoration. */
export type CredentialKind =
  | 'active'
  | 'user'
  | 'expired'
  | 'deleted'
  | 'revoked'
  | 'otherAccount'
  | 'wrongAccount'
  | 'unknown'
  | 'hostile'
  | 'missingAccount'
  | 'missingPasscode'
  | 'none'
  | 'repeatedAccount'
  | 'repeatedPasscode'

export interface HostileRequest {
  readonly method: Method
  readonly route: 'connect' | 'events'
  /** Everything after `?`, or `undefined` for no `?` at all. */
  readonly query: string | undefined
  readonly credential: CredentialKind
  /** Header-name spellings (case) and OWS around the credential values. */
  readonly accountName: string
  readonly passcodeName: string
  readonly padding: readonly [string, string]
  /** Values for `hostile` credentials and for the second copy of a repeated header. */
  readonly hostileAccount: string
  readonly hostilePasscode: string
  /** Other headers, credential headers inserted at `insertAt`. */
  readonly extra: readonly (readonly [string, string])[]
  readonly insertAt: number
}

// --- bytes -------------------------------------------------------------------------
const char = (min: number, max: number) => fc.integer({ min, max }).map((code) => String.fromCharCode(code))
const bytes = (unit: fc.Arbitrary<string>, maxLength: number) => fc.array(unit, { maxLength }).map((units) => units.join(''))
const visible = char(0x21, 0x7e)
const whitespace = fc.constantFrom(' ', '\t')
const obsText = char(0x80, 0xff)
// C0 controls but TAB (allowed), CR and LF (framing: they would make another request), and DEL.
const control = fc.constantFrom(
  ...[...Array(32).keys()]
    .filter((c) => c !== 9 && c !== 10 && c !== 13)
    .concat(127)
    .map((c) => String.fromCharCode(c)),
)
const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const passcodeLike = fc
  .tuple(fc.constantFrom('psc_', 'PSC_', 'psc-', ''), fc.array(fc.constantFrom(...BASE62), { minLength: 0, maxLength: 40 }))
  .map(([prefix, rest]) => prefix + rest.join(''))
const longValue = fc
  .tuple(fc.integer({ min: 250, max: 6_000 }), fc.constantFrom('a', '\xff', 'psc_', ' ', 'é'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length))
const SPECIAL_VALUES = [
  '',
  ' ',
  '\t',
  '""',
  'null',
  'undefined',
  '[object Object]',
  '__proto__',
  'constructor',
  '%00',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '\\u0000',
  '0',
  '-1',
  'true',
  '{}',
  '[]',
]

/** Random and adversarial header values as byte strings. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: bytes(fc.oneof(visible, whitespace), 40) },
  { weight: 4, arbitrary: bytes(fc.oneof(visible, obsText), 40) },
  { weight: 1, arbitrary: bytes(fc.oneof(visible, control), 20) },
  { weight: 1, arbitrary: longValue },
  { weight: 4, arbitrary: passcodeLike },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map(utf8) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_VALUES) },
)

// Framing and routing headers are Node's and the framework's business, not the library's.
const RESERVED = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
  'http2-settings',
  'x-service-account-id',
  'x-service-passcode',
])
const TOKEN = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const tokenName = fc.array(fc.constantFrom(...TOKEN), { minLength: 1, maxLength: 24 }).map((units) => units.join(''))
const headerName = fc
  .oneof(
    { weight: 16, arbitrary: tokenName },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'Content-Type',
        'Accept',
        'Cookie',
        'Authorization',
        'X-Forwarded-For',
        'X-Real-IP',
        'Origin',
        'Referer',
        'User-Agent',
        'Accept-Encoding',
        'Range',
        'X-HTTP-Method-Override',
        '__proto__',
        'constructor',
      ),
    },
    // Not tokens: the HTTP parser refuses them.
    { weight: 1, arbitrary: fc.constantFrom('X A', 'X-\xe9', 'X(a)', 'X-Service-Passcode ', '', 'X\x01', '@{}') },
  )
  .filter((name) => !RESERVED.has(name.toLowerCase()))

const extraHeaders = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }) },
  // Many headers, up to ~100.
  {
    weight: 1,
    arbitrary: fc.array(
      fc.tuple(
        tokenName.filter((n) => !RESERVED.has(n.toLowerCase())),
        bytes(visible, 16),
      ),
      { minLength: 40, maxLength: 100 },
    ),
  },
  // One header repeated many times.
  {
    weight: 1,
    arbitrary: fc
      .tuple(headerName, fc.oneof(bytes(visible, 40), headerValue), fc.integer({ min: 2, max: 60 }))
      .map(([name, value, times]) => Array.from({ length: times }, () => [name, value] as [string, string])),
  },
)

// --- query -------------------------------------------------------------------------
const unicodeText = fc.string({ unit: 'grapheme', maxLength: 40 })
// fast-check's `unit: 'binary'` written out: any code point but the surrogates, drawn as
// one index. Building a string arbitrary on fast-check's own maps all 1.1 million code
// points back to their indices (about 1 CPU-s in each process that loads this file), to
// learn which of its built-in "dangerous" strings it can produce; here the way back is
// arithmetic. Same draws, same strings.
const SURROGATES = 0x800
const anyCodePoint = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (index) => String.fromCodePoint(index < 0xd800 ? index : index + SURROGATES),
  (value) => {
    const code = typeof value === 'string' ? value.codePointAt(0) : undefined
    if (code === undefined || String.fromCodePoint(code) !== value || (code >= 0xd800 && code < 0xe000)) throw new Error('not one code point')
    return code < 0xd800 ? code : code - SURROGATES
  },
)
const anyText = fc.string({ unit: anyCodePoint, maxLength: 30 }).filter((text) => text.isWellFormed())
const partnerValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('acme', 'acme', 'ACME', ' Acme\t', 'acme ', 'globex', '', ' ', 'ac me', 'Acme\u0000', '\u200bacme') },
  { weight: 2, arbitrary: unicodeText },
  { weight: 2, arbitrary: anyText },
  { weight: 1, arbitrary: fc.integer({ min: 129, max: 5_000 }).map((length) => 'p'.repeat(length)) },
)
const encodedPartner = fc.oneof(
  partnerValue.map((value) => `partner=${encodeURIComponent(value)}`),
  partnerValue.map((value) => `partner=${encodeURIComponent(value).replaceAll('%20', '+')}`),
)
const queryPiece = fc.oneof(
  { weight: 12, arbitrary: encodedPartner },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'partner[x]=acme',
      'partner[]=acme',
      'partner',
      'partner=',
      '=acme',
      'a=1',
      '',
      'PARTNER=acme',
      'partner%5B%5D=acme',
      'partner=%zz',
      'partner=%',
      'partner=%e9',
      'partner=%00',
      'partner=ac%00me',
      'partner=%ff%fe',
      'partner=acme%',
      'partner=%C3%A9',
      'partner=%ED%A0%80',
      '__proto__[partner]=acme',
      'partner=acme#frag',
    ),
  },
  // Raw bytes the HTTP parser refuses in a request target (whitespace left out: it ends the target).
  { weight: 1, arbitrary: bytes(fc.oneof(visible, obsText, control), 12).map((text) => `partner=${text}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
  },
)
const query = fc.oneof(
  { weight: 4, arbitrary: encodedPartner },
  { weight: 4, arbitrary: fc.array(queryPiece, { maxLength: 5 }).map((pieces) => pieces.join('&')) },
  { weight: 1, arbitrary: fc.constant(undefined) },
)

// --- requests ----------------------------------------------------------------------
const randomCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((flags) => [...name].map((c, i) => (flags[i] ? c.toUpperCase() : c.toLowerCase())).join(''))
const padding = fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: bytes(whitespace, 3) })

/** One hostile request. */
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method: fc.oneof({ weight: 10, arbitrary: fc.constant<Method>('GET') }, { weight: 5, arbitrary: fc.constantFrom<Method>(...METHODS) }),
  route: fc.oneof({ weight: 3, arbitrary: fc.constant<'connect'>('connect') }, { weight: 1, arbitrary: fc.constant<'events'>('events') }),
  query,
  credential: fc.constantFrom<CredentialKind>(
    'active',
    'active',
    'active',
    'user',
    'expired',
    'deleted',
    'revoked',
    'otherAccount',
    'wrongAccount',
    'unknown',
    'hostile',
    'hostile',
    'missingAccount',
    'missingPasscode',
    'none',
    'repeatedAccount',
    'repeatedPasscode',
  ),
  accountName: randomCase('X-Service-Account-Id'),
  passcodeName: randomCase('X-Service-Passcode'),
  padding: fc.tuple(padding, padding),
  hostileAccount: headerValue,
  hostilePasscode: headerValue,
  extra: extraHeaders,
  insertAt: fc.nat(),
})

/** The request's headers in order, credential headers included. */
export function headersOf(request: HostileRequest, f: HttpFixture): [string, string][] {
  const [before, after] = request.padding
  const pad = (value: string) => `${before}${value}${after}`
  const credentials: [string, string][] = []
  const account = (value: string) => credentials.push([request.accountName, value])
  const passcode = (value: string) => credentials.push([request.passcodeName, value])
  switch (request.credential) {
    case 'active':
      account(pad(f.accountId))
      passcode(pad(f.passcodes.active))
      break
    case 'user':
      account(pad(f.accountId))
      passcode(pad(f.passcodes.user))
      break
    case 'expired':
      account(pad(f.accountId))
      passcode(pad(f.passcodes.expired))
      break
    case 'deleted':
      account(f.accountId)
      passcode(f.passcodes.deleted)
      break
    case 'revoked':
      account(f.accountId)
      passcode(f.passcodes.revokedUser)
      break
    case 'otherAccount':
      account(f.accountId)
      passcode(f.passcodes.otherAccount)
      break
    case 'wrongAccount':
      account('acc_nobody')
      passcode(f.passcodes.active)
      break
    case 'unknown':
      account(f.accountId)
      passcode(f.passcodes.unknown)
      break
    case 'hostile':
      account(request.hostileAccount)
      passcode(request.hostilePasscode)
      break
    case 'missingAccount':
      passcode(f.passcodes.active)
      break
    case 'missingPasscode':
      account(f.accountId)
      break
    case 'none':
      break
    case 'repeatedAccount':
      account(f.accountId)
      passcode(f.passcodes.active)
      account(request.hostileAccount.length > 0 ? request.hostileAccount : f.accountId)
      break
    case 'repeatedPasscode':
      account(f.accountId)
      passcode(f.passcodes.active)
      passcode(request.hostilePasscode.length > 0 ? request.hostilePasscode : f.passcodes.active)
      break
  }
  const headers = request.extra.map(([name, value]) => [name, value] as [string, string])
  headers.splice(request.insertAt % (headers.length + 1), 0, ...credentials)
  return headers
}

/** The request target, query included. */
export const targetOf = (request: HostileRequest): string =>
  `${request.route === 'connect' ? '/v1/connect' : '/1/events.json'}${request.query === undefined ? '' : `?${request.query}`}`

// The characters of TOKEN, as one pattern.
const isToken = (name: string) => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)
const isFieldValue = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value)

/**
 * Whether Node's HTTP parser refuses the request before any framework sees it (it
 * answers 400 itself): a header name that is not a token, a control byte in a value,
 * or a request-target byte outside visible ASCII.
 */
export function refusedByParser(headers: readonly (readonly [string, string])[], target: string): boolean {
  return !/^[\x21-\x7e]*$/.test(target) || headers.some(([name, value]) => !isToken(name) || !isFieldValue(value))
}

/** Bytes of the request line and headers, roughly as Node counts them against its 16 KiB limit. */
export const headSize = (headers: readonly (readonly [string, string])[], target: string): number =>
  target.length + 40 + headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0)

/** What a SPEC answer must be. */
export interface SpecAnswer {
  readonly status: number
  /** Exact body text (before HEAD drops it). */
  readonly body: string
  /** passcode-auth answers carry Cache-Control: no-store; the principal route's body is the host's. */
  readonly own: boolean
}

const spec = (status: number, error: string): SpecAnswer => ({ status, body: JSON.stringify({ status: 'fail', error, code: status }), own: true })
const INVALID = spec(400, 'Invalid Credentials')
const EXPIRED = spec(401, 'Passcode expired')
// SPEC §5.3 and §5.24: the echo loses controls (C0, DEL, C1), format and other
// invisible characters, line and paragraph separators and unpaired surrogates.
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu

/** What the partner part of `GET /v1/connect` answers once the caller is authenticated. */
function partnerAnswer(query: string | undefined): SpecAnswer {
  const values = query === undefined ? [] : new URLSearchParams(query).getAll('partner')
  const single = values.length === 1 ? values[0]! : undefined
  if (single === undefined || single.trim() === '') return spec(400, 'Missing partner')
  if (single.trim().toLowerCase() === 'acme') return { status: 200, body: '{"status":"success","message":"Authorised Successfully."}', own: true }
  const echo = Array.from(single.replace(UNSHOWN, '')).slice(0, 128).join('')
  return spec(403, `Partner not whitelisted ${echo}`)
}

/**
 * The exact answer for a request the parser accepts, or `'not-found'` for a method the
 * host did not route (the framework's own 404, or Express's automatic OPTIONS reply).
 */
export function expectedAnswer(request: HostileRequest, f: HttpFixture): SpecAnswer | 'not-found' {
  if (request.route === 'connect' && request.method !== 'GET' && request.method !== 'HEAD') {
    return spec(405, 'Method Not Allowed')
  }
  if (request.route === 'events' && request.method !== 'GET' && request.method !== 'HEAD') return 'not-found'
  switch (request.credential) {
    case 'active':
    case 'user':
      if (request.route === 'connect') return partnerAnswer(request.query)
      return { status: 200, body: JSON.stringify(request.credential === 'active' ? f.principals.account : f.principals.user), own: false }
    case 'expired':
      return EXPIRED
    default:
      return INVALID
  }
}
