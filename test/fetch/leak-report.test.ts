import { describe, expect, it } from 'vitest'
import { githubPublicKeys, leakReportHandler } from '../../src/fetch/index'
import { createPasscodeAuth, InvalidOptionsError } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { derSignature, GITHUB_SAMPLE, leakFixture, P256_ORDER, signatureParts, signBody, signedHeaders } from '../helpers/leak-reports'

const post = (body: BodyInit, headers: Record<string, string>) => new Request('https://host.example/v1/leaks', { method: 'POST', body, headers })

describe('SPEC 5.42 leakReportHandler (fetch)', () => {
  it("verifies GitHub's published sample and answers its token false_positive", async () => {
    const auth = createPasscodeAuth({ store: memoryStore() })
    const handler = leakReportHandler(auth, { publicKeys: [{ id: GITHUB_SAMPLE.keyId, pem: GITHUB_SAMPLE.pem }] })
    const response = await handler(
      post(GITHUB_SAMPLE.payload, { 'github-public-key-identifier': GITHUB_SAMPLE.keyId, 'github-public-key-signature': GITHUB_SAMPLE.signature }),
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([{ token_raw: 'some_token', token_type: 'some_type', label: 'false_positive' }])
    // One byte changed: the sample no longer verifies.
    const tampered = await handler(
      post(GITHUB_SAMPLE.payload.replace('some_url', 'some_urm'), {
        'github-public-key-identifier': GITHUB_SAMPLE.keyId,
        'github-public-key-signature': GITHUB_SAMPLE.signature,
      }),
    )
    expect(tampered.status).toBe(401)
  })

  it('answers the labels, disables the live value (refused on another instance), mails without the value; a replay changes nothing', async () => {
    const fixture = await leakFixture()
    const handler = leakReportHandler(fixture.auth, { publicKeys: fixture.publicKeys })
    const response = await handler(post(fixture.report, signedHeaders(fixture.key, fixture.report)))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(await response.json()).toEqual(fixture.expectedAnswer)

    const otherInstance = createPasscodeAuth({ store: fixture.store })
    expect(await otherInstance.authenticate({ accountId: 'acc', passcode: fixture.live.value })).toMatchObject({ ok: false, statusCode: 400 })
    expect(fixture.mailer.messages).toHaveLength(1)
    expect(fixture.mailer.messages[0]!.text).toContain('https://github.com/octo/repo/blob/main/.env')
    expect(JSON.stringify(fixture.mailer.messages)).not.toContain(fixture.live.value)
    const records = await fixture.leakRecords()
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ actor: { type: 'system' }, target: { type: 'passcode', id: fixture.live.passcode.id } })
    expect(JSON.stringify(records)).not.toContain(fixture.live.value)

    const events = fixture.events.length
    const record = await fixture.store.getAccountPasscode('acc', fixture.live.passcode.id)
    const replay = await handler(post(fixture.report, signedHeaders(fixture.key, fixture.report)))
    expect(await replay.json()).toEqual(fixture.expectedAnswer)
    expect(fixture.mailer.messages).toHaveLength(1)
    expect(fixture.events).toHaveLength(events)
    expect(await fixture.leakRecords()).toHaveLength(1)
    expect(await fixture.store.getAccountPasscode('acc', fixture.live.passcode.id)).toEqual(record)
  })

  it('refuses each kind of bad report with 401, 413 or 400 in the error shape, and changes nothing', async () => {
    const fixture = await leakFixture()
    const handler = leakReportHandler(fixture.auth, { publicKeys: fixture.publicKeys })
    for (const bad of fixture.badReports()) {
      const response = await handler(post(bad.body as BodyInit, bad.headers))
      expect({ name: bad.name, status: response.status }).toEqual({ name: bad.name, status: bad.status })
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(Object.keys(body)).toEqual(['error'])
      expect(typeof body.error.code).toBe('string')
      expect(JSON.stringify(body)).not.toContain(fixture.live.value)
    }
    expect(await fixture.unchanged()).toBe(true)
    expect((await handler(new Request('https://host.example/v1/leaks'))).status).toBe(405)
  })

  it('reads no further than 1 MiB + one chunk of an endless body', async () => {
    const fixture = await leakFixture()
    const handler = leakReportHandler(fixture.auth, { publicKeys: fixture.publicKeys })
    let pulled = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 65_536
        controller.enqueue(new Uint8Array(65_536).fill(0x20))
      },
    })
    const request = new Request('https://host.example/v1/leaks', {
      method: 'POST',
      body: endless,
      headers: signedHeaders(fixture.key, 'x'),
      duplex: 'half',
    } as RequestInit)
    expect((await handler(request)).status).toBe(413)
    expect(pulled).toBeLessThan(1_048_576 + 4 * 65_536)
  })

  it('takes each signature in its one DER encoding only: re-encoded otherwise (padded, unsigned, long-form, trailing bytes, loose base64) it is 401 and changes nothing', async () => {
    const fixture = await leakFixture()
    const handler = leakReportHandler(fixture.auth, { publicKeys: fixture.publicKeys })
    const headers = (signature: string) => ({ ...signedHeaders(fixture.key, fixture.report), 'github-public-key-signature': signature })
    const highBit = (value: bigint) => value >> 255n === 1n
    // A signature whose r needs its sign's 0x00 and whose s does not, to break each rule: ECDSA signs with a random k, 1 try in 4.
    let signature: string
    let parts: { r: bigint; s: bigint }
    do {
      signature = signBody(fixture.key.privateKey, fixture.report)
      parts = signatureParts(signature)
    } while (!highBit(parts.r) || highBit(parts.s))
    const { r, s } = parts
    // The canonical re-encoding is the signature itself: the helper writes DER as Node does.
    expect(derSignature(r, s)).toBe(signature)
    const der = Buffer.from(signature, 'base64')
    const rUnsigned = [0x02, 32, ...Buffer.from(r.toString(16).padStart(64, '0'), 'hex')]
    const sDer = [...der.subarray(2 + 2 + der[3]!)]
    const variants: Record<string, string> = {
      'r without the 0x00 its sign needs (a negative INTEGER)': Buffer.from([0x30, rUnsigned.length + sDer.length, ...rUnsigned, ...sDer]).toString(
        'base64',
      ),
      's with a redundant leading 0x00': derSignature(r, s, { s: 1 }),
      'the SEQUENCE length in long form': Buffer.from([0x30, 0x81, ...der.subarray(1)]).toString('base64'),
      'a byte after the SEQUENCE': Buffer.concat([der, Buffer.from([0])]).toString('base64'),
      'base64 with a space inside': `${signature.slice(0, 20)} ${signature.slice(20)}`,
    }
    // 71 or 70 bytes: base64 ends in padding, and the last character before it has bits that decode to nothing; set one.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
    const last = signature.replace(/=+$/, '').length - 1
    expect(signature.endsWith('=')).toBe(true)
    variants['base64 with a bit set that decodes to nothing'] =
      signature.slice(0, last) + alphabet[alphabet.indexOf(signature[last]!) + 1]! + signature.slice(last + 1)
    expect(Buffer.from(variants['base64 with a bit set that decodes to nothing'], 'base64').equals(der)).toBe(true)
    const statuses: Record<string, number> = {}
    for (const [name, variant] of Object.entries(variants)) statuses[name] = (await handler(post(fixture.report, headers(variant)))).status
    expect(statuses).toEqual(Object.fromEntries(Object.keys(variants).map((name) => [name, 401])))
    expect(await fixture.unchanged()).toBe(true)
    expect((await handler(post(fixture.report, headers(signature)))).status).toBe(200)
  })

  it('accepts a signature with a high S (n − s): signers such as Go and OpenSSL do not normalise S, and a replay needs no second signature', async () => {
    const fixture = await leakFixture()
    const handler = leakReportHandler(fixture.auth, { publicKeys: fixture.publicKeys })
    const signature = signBody(fixture.key.privateKey, fixture.report)
    const { r, s } = signatureParts(signature)
    const [low, high] = s > P256_ORDER / 2n ? [P256_ORDER - s, s] : [s, P256_ORDER - s]
    for (const [name, value] of [
      ['high S', high],
      ['low S', low],
    ] as const) {
      const response = await handler(
        post(fixture.report, { ...signedHeaders(fixture.key, fixture.report), 'github-public-key-signature': derSignature(r, value) }),
      )
      expect({ name, status: response.status }).toEqual({ name, status: 200 })
      expect(await response.json()).toEqual(fixture.expectedAnswer)
    }
    // The second signature of the same report acted on nothing more: one email, one record.
    expect(fixture.mailer.messages).toHaveLength(1)
    expect(await fixture.leakRecords()).toHaveLength(1)
  })

  it("reads GitHub's key list format, and refuses bad options at once", async () => {
    const keys = githubPublicKeys({ public_keys: [{ key_identifier: GITHUB_SAMPLE.keyId, key: GITHUB_SAMPLE.pem, is_current: true }] })
    expect(keys).toEqual([{ id: GITHUB_SAMPLE.keyId, pem: GITHUB_SAMPLE.pem }])
    expect(() => githubPublicKeys({ keys: [] })).toThrow(TypeError)
    const auth = createPasscodeAuth({ store: memoryStore() })
    expect(() => leakReportHandler(auth, { publicKeys: [] })).toThrow(InvalidOptionsError)
    expect(() => leakReportHandler(auth, { publicKeys: [{ id: 'k', pem: 'not a key' }] })).toThrow(InvalidOptionsError)
    // A function is asked per report, so a host can refresh GitHub's list.
    const handler = leakReportHandler(auth, { publicKeys: async () => keys })
    const response = await handler(
      post(GITHUB_SAMPLE.payload, { 'github-public-key-identifier': GITHUB_SAMPLE.keyId, 'github-public-key-signature': GITHUB_SAMPLE.signature }),
    )
    expect(response.status).toBe(200)
  })
})
