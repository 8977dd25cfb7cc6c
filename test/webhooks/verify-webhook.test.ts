import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { verifyWebhook, WebhookVerificationError, WEBHOOK_EVENT_TYPES } from 'passcode-auth/webhooks'
import { generateWebhookSecret, webhookSecretKey } from '../../src/core/webhook-secret'
import { webhookBody, webhookHeaders } from '../../src/service/webhooks/dispatch'

const body = webhookBody({ type: 'passcode.rotated', at: Date.UTC(2026, 4, 1), data: { passcode: { id: 'pc_1', name: 'Acme', hint: 'psc_…x9Qz' } } })
const nowSeconds = () => Math.floor(Date.now() / 1000)

describe('SPEC 5.53 passcode-auth/webhooks: verifyWebhook against the standardwebhooks package, both ways', () => {
  it('verifies what the standardwebhooks package signs (headers as an object, as a Headers, body as text or bytes)', async () => {
    const secret = generateWebhookSecret()
    const signed = new Webhook(secret).sign('msg_1', new Date(), body)
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(nowSeconds()), 'webhook-signature': signed }
    const event = await verifyWebhook(secret, headers, body)
    expect(event).toEqual({ id: 'msg_1', type: 'passcode.rotated', timestamp: '2026-05-01T00:00:00.000Z', data: JSON.parse(body).data })
    await expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).resolves.toMatchObject({ id: 'msg_1' })
  })

  it('reads the names of a plain header object in any case, as the standardwebhooks package does (SPEC §5.4)', async () => {
    const secret = generateWebhookSecret()
    const id = 'msg_case'
    const timestamp = String(nowSeconds())
    const signed = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body)
    const packageVerify = (headers: Record<string, string | string[]>) => new Webhook(secret).verify(body, headers as Record<string, string>)
    const spellings: Record<string, string | string[]>[] = [
      { 'Webhook-Id': id, 'Webhook-Timestamp': timestamp, 'Webhook-Signature': signed },
      { 'WEBHOOK-ID': id, 'webhook-Timestamp': timestamp, 'wEbHoOk-SiGnAtUrE': signed },
      // One value given as a one-element array (a header list): the package reads it too.
      { 'Webhook-Id': [id], 'Webhook-Timestamp': [timestamp], 'Webhook-Signature': signed },
    ]
    for (const headers of spellings) {
      expect(packageVerify(headers)).toEqual(JSON.parse(body))
      await expect(verifyWebhook(secret, headers, body)).resolves.toMatchObject({ id, type: 'passcode.rotated' })
    }
    // Keys that differ only in case: the last one counts, as in the package.
    const twice = { 'webhook-id': 'msg_other', 'Webhook-Id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signed }
    expect(packageVerify(twice)).toEqual(JSON.parse(body))
    await expect(verifyWebhook(secret, twice, body)).resolves.toMatchObject({ id })
    // An array value for the signature too (the package throws a TypeError there, not a verdict).
    await expect(
      verifyWebhook(secret, { 'Webhook-Id': id, 'Webhook-Timestamp': timestamp, 'Webhook-Signature': [signed] }, body),
    ).resolves.toMatchObject({ id })
    // A header given empty is missing, for both.
    const empty = { 'Webhook-Id': '', 'Webhook-Timestamp': timestamp, 'Webhook-Signature': signed }
    expect(() => packageVerify(empty)).toThrow('Missing required headers')
    await expect(verifyWebhook(secret, empty, body)).rejects.toMatchObject({ reason: 'missing_headers' })
    await expect(verifyWebhook(secret, { ...empty, 'Webhook-Id': [] }, body)).rejects.toMatchObject({ reason: 'missing_headers' })
  })

  it('signs what the standardwebhooks package verifies, with both signatures of a rotation', () => {
    const [old, next] = [generateWebhookSecret(), generateWebhookSecret()]
    const headers = webhookHeaders('msg_2', [next, old], nowSeconds(), body)
    expect(headers['webhook-signature']!.split(' ')).toEqual([expect.stringMatching(/^v1,/), expect.stringMatching(/^v1,/)])
    for (const secret of [old, next]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow()
  })

  it('refuses a wrong secret, a changed body or id, a stale or future timestamp, missing headers and a non-JSON body', async () => {
    const secret = generateWebhookSecret()
    const headers = webhookHeaders('msg_3', [secret], nowSeconds(), body)
    const refused = async (reason: string, ...args: Parameters<typeof verifyWebhook>) =>
      expect(verifyWebhook(...args)).rejects.toSatisfy((error) => error instanceof WebhookVerificationError && error.reason === reason)
    await refused('bad_signature', generateWebhookSecret(), headers, body)
    await refused('bad_signature', secret, headers, body.replace('Acme', 'Acmf'))
    await refused('bad_signature', secret, { ...headers, 'webhook-id': 'msg_4' }, body)
    await refused('stale_timestamp', secret, webhookHeaders('msg_3', [secret], nowSeconds() - 301, body), body)
    await refused('stale_timestamp', secret, webhookHeaders('msg_3', [secret], nowSeconds() + 301, body), body)
    await refused('bad_timestamp', secret, { ...headers, 'webhook-timestamp': '1e9' }, body)
    await refused('missing_headers', secret, { 'webhook-id': 'msg_3' }, body)
    await refused('bad_secret', 'whsec_', headers, body)
    await refused('bad_body', secret, webhookHeaders('msg_5', [secret], nowSeconds(), 'not json'), 'not json')
    // Either secret of a rotation verifies, given as a list.
    await expect(verifyWebhook([generateWebhookSecret(), secret], headers, body)).resolves.toMatchObject({ id: 'msg_3' })
    expect(webhookSecretKey(secret)).toHaveLength(32)
  })

  it('is a light entry: pure core files only, no Node-only API, at most 3 KB minified and gzipped for a browser', async () => {
    const result = await build({
      entryPoints: ['src/webhooks/index.ts'],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    expect(Object.keys(result.metafile.inputs).sort()).toEqual([
      'src/core/class-name.ts',
      'src/core/webhook-events.ts',
      'src/core/webhook-secret.ts',
      'src/webhooks/index.ts',
      'src/webhooks/verify-webhook.ts',
    ])
    const code = result.outputFiles[0]!.text
    expect(code).not.toMatch(/\bnode:|\brequire\s*\(|\bprocess\b|\bBuffer\b|\b(?:setImmediate|__dirname|__filename|global)\b/)
    expect(gzipSync(code, { level: 9 }).byteLength).toBeLessThanOrEqual(3 * 1024)
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(15)
  })
})
