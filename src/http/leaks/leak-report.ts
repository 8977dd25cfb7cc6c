import { InvalidOptionsError } from '../../core/errors'
import {
  LEAK_KEY_ID_HEADER,
  LEAK_SIGNATURE_HEADER,
  MAX_LEAK_REPORT_BYTES,
  leakReportSchema,
  type LeakReportAnswerEntry,
} from '../../protocol/leak-report'
import { managementErrorAnswer, managementFailure, type ManagementFailure } from '../../protocol/management-errors'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { assertPasscodeAuth, checkAdapterOptions } from '../adapter-options'
import { publicKeysProblem, type LeakReportKey } from './public-keys'
import { readLimited, type BodySource } from './read-limited'
import { importPublicKey, verifySignature } from './signature'

/** Options of `leakReportHandler`, in every entry point. */
export interface LeakReportOptions {
  /**
   * The keys reports may be signed with, `[{ id, pem }]` (see `githubPublicKeys`), or a
   * function returning them, called per report, so a host can refresh GitHub's list
   * (cache it: the function is on the request path).
   */
  publicKeys: readonly LeakReportKey[] | (() => readonly LeakReportKey[] | Promise<readonly LeakReportKey[]>)
  /** Who found the tokens, when an entry has no `source` of its own. @default 'github' */
  source?: string
}

/** What the leak report handler answers: a status, headers and the JSON body text. */
export interface LeakReportAnswer {
  readonly statusCode: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** A leak report request, whatever its shape: a header getter, the method and the raw body. */
export interface LeakReportInput {
  /** A header's value by lower-case name; `undefined` when absent. */
  header(lowerCaseName: string): string | readonly string[] | undefined
  /** The request method. */
  readonly method: string | undefined
  /**
   * The raw body, read only after the signature headers were checked, and no further
   * than 1 MiB; `'parsed'` when a body parser of the host consumed it already (the
   * signature covers the raw bytes, so the report cannot be checked: a 500 that says so).
   */
  readonly body: BodySource | 'parsed'
}

// Frozen: a Response polyfill (@hono/node-server's) writes into the headers object it is given.
const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })

function answer(statusCode: number, body: unknown, headers: Readonly<Record<string, string>> = JSON_HEADERS): LeakReportAnswer {
  return { statusCode, headers, body: JSON.stringify(body) }
}
const failure = ({ statusCode, body }: ManagementFailure, headers?: Readonly<Record<string, string>>): LeakReportAnswer =>
  answer(statusCode, body, headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers })

const UNSIGNED = failure(
  managementFailure('ERR_UNAUTHENTICATED', 'The report must be signed: Github-Public-Key-Identifier and Github-Public-Key-Signature'),
)
const BAD_SIGNATURE = failure(managementFailure('ERR_UNAUTHENTICATED', 'The signature does not verify with a configured key'))
// The rest of the body is never read: the connection ends after the answer (RFC 9112
// §9.6), or a server would hold it until the client gave up sending (73 s on Fastify).
const TOO_LARGE = failure(managementFailure('ERR_PAYLOAD_TOO_LARGE', `A leak report is at most ${MAX_LEAK_REPORT_BYTES} bytes`), {
  connection: 'close',
})
const NOT_POST = failure(managementFailure('ERR_METHOD_NOT_ALLOWED', 'Leak reports are sent with POST'), { allow: 'POST' })
const PARSED = failure(
  managementFailure('ERR_CONFIGURATION', 'A body parser read the leak report first: mount leakReportHandler before any body parser'),
)
const malformed = (message: string) => failure(managementFailure('ERR_INVALID_INPUT', message))

function single(value: string | readonly string[] | undefined): string | undefined {
  const one = typeof value === 'string' ? value : value?.length === 1 ? value[0] : undefined
  return one === undefined || one === '' || one.length > 1_024 ? undefined : one
}

/**
 * Handles one signed leak report (SPEC §5.42) over any request shape; the entry points'
 * `leakReportHandler` adapt their request to a {@link LeakReportInput}. Steps, in order,
 * and nothing changes before the last: the method; both signature headers (401); the
 * key by id (401); the body, read up to 1 MiB (413); the signature over those exact
 * bytes (401); JSON, an array of `{ token, type, url?, source? }` (400); then
 * `auth.leaks.report` and the answer GitHub expects, `[{ token_raw, token_type, label }]`.
 * Failures use the management API's error body `{"error":{"code","message"}}`.
 */
export function createLeakReport(
  auth: PasscodeAuth,
  options: LeakReportOptions,
  factory = 'leakReportHandler',
): (input: LeakReportInput) => Promise<LeakReportAnswer> {
  assertPasscodeAuth(auth, factory)
  // A JavaScript caller may pass no options, or options without publicKeys.
  const given = options as Partial<LeakReportOptions> | null | undefined
  if (given === undefined || given === null) throw new InvalidOptionsError('publicKeys', `${factory} needs { publicKeys }`)
  const checked = checkAdapterOptions(given, factory, {
    publicKeys: publicKeysProblem,
    source: (value) => (value === undefined || (typeof value === 'string' && value.trim() !== '') ? undefined : 'must be a non-empty string'),
  })
  const publicKeys = checked.publicKeys
  if (publicKeys === undefined) throw new InvalidOptionsError('publicKeys', `${factory} needs { publicKeys }`)
  const listKeys = typeof publicKeys === 'function' ? publicKeys : () => publicKeys
  const defaultSource = checked.source ?? 'github'
  // Imported once per PEM; a key that does not import is a configuration error, answered 500.
  const imported = new Map<string, Promise<CryptoKey>>()
  const keyFor = async (id: string): Promise<CryptoKey | undefined> => {
    const key = (await listKeys()).find((candidate) => candidate.id === id)
    if (key === undefined) return undefined
    let cryptoKey = imported.get(key.pem)
    if (cryptoKey === undefined) {
      cryptoKey = importPublicKey(key.pem)
      imported.set(key.pem, cryptoKey)
      cryptoKey.catch(() => imported.delete(key.pem))
    }
    return cryptoKey
  }

  return async function leakReport(input) {
    if (input.method?.toUpperCase() !== 'POST') return NOT_POST
    const keyId = single(input.header(LEAK_KEY_ID_HEADER))
    const signature = single(input.header(LEAK_SIGNATURE_HEADER))
    if (keyId === undefined || signature === undefined) return UNSIGNED
    if (input.body === 'parsed') return PARSED
    try {
      const key = await keyFor(keyId)
      if (key === undefined) return BAD_SIGNATURE
      const declared = Number(single(input.header('content-length')) ?? 0)
      if (declared > MAX_LEAK_REPORT_BYTES) return TOO_LARGE
      const body = await readLimited(input.body, MAX_LEAK_REPORT_BYTES)
      if (body === undefined) return TOO_LARGE
      if (!(await verifySignature(key, signature, body))) return BAD_SIGNATURE
      let json: unknown
      try {
        json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body))
      } catch {
        return malformed('The report is not JSON')
      }
      if (!Array.isArray(json)) return malformed('The report must be a JSON array')
      const parsed = leakReportSchema.safeParse(json)
      if (!parsed.success) return malformed('Each entry needs a string token and type; url and source are strings when present')
      const verdicts = await auth.leaks.report(
        parsed.data.map(({ token, url, source }) => ({ token, url, source })),
        { source: defaultSource },
      )
      const entries: LeakReportAnswerEntry[] = parsed.data.map((entry, index) => ({
        token_raw: entry.token,
        token_type: entry.type,
        label: verdicts[index]!.label,
      }))
      return answer(200, entries)
    } catch (error) {
      return failure(managementErrorAnswer(error))
    }
  }
}
