import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { memoryMailer } from '../../src/memory'
import { admin, setup } from './service'

/** GitHub's published sample (docs.github.com, "Secret scanning partner program"): key, payload, signature. */
export const GITHUB_SAMPLE = {
  keyId: '90a421169f0a406205f1563a953312f0be898d3c7b6c06b681aa86a874555f4a',
  pem: [
    '-----BEGIN PUBLIC KEY-----',
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE9MJJHnMfn2+H4xL4YaPDA4RpJqUq',
    'kCmRCBnYERxZanmcpzQSXs1X/AljlKkbJ8qpVIW4clayyef9gWhFbNHWAA==',
    '-----END PUBLIC KEY-----',
  ].join('\n'),
  payload: '[{"token":"some_token","type":"some_type","url":"some_url"}]',
  signature: 'MEUCIQDKZokqnCjrRtw0tni+2Ltvl/uiMJ1EGumEsp1BsNr32AIgQY1YXD2nlj+XNfGK4rBfkMJ1JDOQcYXxa2sY8FNkrKc=',
}

/** A fresh P-256 signing key, made in the test: nothing real. */
export function signingKey(id: string): { id: string; pem: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return { id, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey }
}

/** Base64 DER ECDSA SHA-256 signature of `body`, as GitHub sends it. */
export function signBody(privateKey: KeyObject, body: string | Uint8Array): string {
  return sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, privateKey).toString('base64')
}

/** The order of P-256's base point: an ECDSA signature (r, s) and (r, n − s) verify alike. */
export const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n

const bytesOf = (value: bigint): number[] => {
  const bytes: number[] = []
  for (let rest = value; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn))
  return bytes
}

/** One DER INTEGER of a positive value: minimal, with the 0x00 its sign needs (`pad` adds that many more, a non-canonical form). */
const derInteger = (value: bigint, pad = 0): number[] => {
  const bytes = bytesOf(value)
  const content = [...Array<number>(pad + (bytes[0]! >= 0x80 ? 1 : 0)).fill(0), ...bytes]
  return [0x02, content.length, ...content]
}

/** The (r, s) of a base64 DER ECDSA signature, as Node's `sign` writes it. */
export function signatureParts(signature: string): { r: bigint; s: bigint } {
  const der = Buffer.from(signature, 'base64')
  const read = (at: number) => {
    const length = der[at + 1]!
    return { value: BigInt(`0x${der.subarray(at + 2, at + 2 + length).toString('hex')}`), next: at + 2 + length }
  }
  const r = read(2)
  return { r: r.value, s: read(r.next).value }
}

/** A base64 DER ECDSA signature of (r, s); `pad` puts redundant leading zero bytes in front of r and s (not DER). */
export function derSignature(r: bigint, s: bigint, pad: { r?: number; s?: number } = {}): string {
  const body = [...derInteger(r, pad.r), ...derInteger(s, pad.s)]
  return Buffer.from([0x30, body.length, ...body]).toString('base64')
}

/** Headers of a signed report. */
export function signedHeaders(key: { id: string; privateKey: KeyObject }, body: string | Uint8Array): Record<string, string> {
  return { 'content-type': 'application/json', 'github-public-key-identifier': key.id, 'github-public-key-signature': signBody(key.privateKey, body) }
}

/**
 * A service with one live account passcode, one deleted (revoked) one, a memory mailer
 * and a signing key; `report` is the body of the report: the live value, the
 * deleted one, a foreign token and a look-alike (right shape, wrong checksum).
 */
export async function leakFixture() {
  const mailer = memoryMailer()
  const context = setup({ mailer, recipients: (accountId) => [`admins@${accountId}.example`] })
  const { auth } = context
  const live = await auth.passcodes.create(admin, 'acc', { name: 'Acme export', expiry: 90 })
  const gone = await auth.passcodes.create(admin, 'acc', { name: 'Old', expiry: 90 })
  await auth.passcodes.delete(admin, 'acc', gone.passcode.id)
  const lookAlike = live.value.slice(0, -1) + (live.value.endsWith('A') ? 'B' : 'A')
  const foreign = 'ghp_' + 'a'.repeat(36)
  const url = 'https://github.com/octo/repo/blob/main/.env'
  const report = JSON.stringify([
    { token: live.value, type: 'passcode_auth', url, source: 'content' },
    { token: gone.value, type: 'passcode_auth', url, source: 'content' },
    { token: foreign, type: 'passcode_auth', url, source: 'content' },
    { token: lookAlike, type: 'passcode_auth', url, source: 'content' },
  ])
  const key = signingKey('k-test')
  const other = signingKey('k-other')
  const expectedAnswer = [
    { token_raw: live.value, token_type: 'passcode_auth', label: 'true_positive' },
    { token_raw: gone.value, token_type: 'passcode_auth', label: 'false_positive' },
    { token_raw: foreign, token_type: 'passcode_auth', label: 'false_positive' },
    { token_raw: lookAlike, token_type: 'passcode_auth', label: 'false_positive' },
  ]
  const publicKeys = [
    { id: key.id, pem: key.pem },
    { id: GITHUB_SAMPLE.keyId, pem: GITHUB_SAMPLE.pem },
  ]
  /** The bad reports of the issue, each with its status. */
  const badReports = (): { name: string; body: string | Uint8Array; headers: Record<string, string>; status: number }[] => {
    const big = new Uint8Array(1_048_577).fill(0x20)
    return [
      { name: 'no signature', body: report, headers: { 'content-type': 'application/json' }, status: 401 },
      { name: 'a signature over other bytes', body: report, headers: signedHeaders(key, report + ' '), status: 401 },
      {
        name: 'an unknown key id',
        body: report,
        headers: { ...signedHeaders(key, report), 'github-public-key-identifier': 'k-unknown' },
        status: 401,
      },
      {
        name: 'a signature by another key',
        body: report,
        headers: { ...signedHeaders(other, report), 'github-public-key-identifier': key.id },
        status: 401,
      },
      { name: '1 MiB + 1 byte', body: big, headers: signedHeaders(key, big), status: 413 },
      { name: 'not JSON', body: 'nope', headers: signedHeaders(key, 'nope'), status: 400 },
      { name: 'not an array', body: '{"token":"x"}', headers: signedHeaders(key, '{"token":"x"}'), status: 400 },
      { name: 'fields of the wrong type', body: '[{"token":1,"type":"t"}]', headers: signedHeaders(key, '[{"token":1,"type":"t"}]'), status: 400 },
    ]
  }
  /** The account's `passcode.leak_reported` audit records (SPEC §5.40), newest first. */
  const leakRecords = async () => (await auth.audit.list(admin, 'acc', { action: 'passcode.leak_reported' })).records
  /** Asserts nothing changed: the live value still works, nothing was mailed or recorded. */
  const unchanged = async () => {
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: live.value })
    return outcome.ok && mailer.messages.length === 0 && (await leakRecords()).length === 0
  }
  return { ...context, mailer, live, gone, report, key, other, publicKeys, expectedAnswer, badReports, unchanged, leakRecords }
}
