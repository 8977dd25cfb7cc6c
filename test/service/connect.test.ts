import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { generatePasscode, type PasscodeStore } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, INVALID_CREDENTIALS, setup } from '../helpers/service'

async function withPasscode(options: Parameters<typeof setup>[0] = {}) {
  const context = setup(options)
  const { value } = await context.auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
  const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
  return { ...context, value, headers }
}

describe('SPEC 4 GET /v1/connect', () => {
  it('answers 200 for valid credentials and a whitelisted partner', async () => {
    const { auth, headers } = await withPasscode()
    expect(await auth.connect({ headers, partner: 'Acme' })).toEqual({
      statusCode: 200,
      body: { status: 'success', message: 'Authorised Successfully.' },
      // Its 30 days are its last 30 days: the answer says when it ends (RFC 8594).
      headers: { sunset: 'Sat, 31 Jan 2026 00:00:00 GMT' },
    })
  })

  it('answers 400 Invalid Credentials for a wrong account ID or passcode', async () => {
    const { auth, value } = await withPasscode()
    for (const headers of [
      { 'x-service-account-id': 'nope', 'x-service-passcode': value },
      { 'x-service-account-id': 'acc', 'x-service-passcode': generatePasscode() },
    ]) {
      expect(await auth.connect({ headers, partner: 'Acme' })).toMatchObject({ statusCode: 400, body: INVALID_CREDENTIALS })
    }
  })

  it('answers 403 with the partner name for a partner that is not whitelisted', async () => {
    const { auth, headers } = await withPasscode()
    expect(await auth.connect({ headers, partner: 'Globex' })).toMatchObject({
      statusCode: 403,
      body: { status: 'fail', error: 'Partner not whitelisted Globex', code: 403 },
    })
  })

  it('answers 503 and 504 with the Server Error body', async () => {
    const throwing: PasscodeStore = { ...memoryStore(), findCredentialByHash: () => Promise.reject(new Error('boom')) }
    const hanging: PasscodeStore = { ...memoryStore(), findCredentialByHash: () => new Promise(() => {}) }
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': generatePasscode() }
    expect(await setup({ store: throwing }).auth.connect({ headers, partner: 'Acme' })).toMatchObject({
      statusCode: 503,
      body: { status: 'fail', error: 'Server Error', code: 503 },
    })
    expect(await setup({ store: hanging, timeoutMs: 20 }).auth.connect({ headers, partner: 'Acme' })).toMatchObject({
      statusCode: 504,
      body: { status: 'fail', error: 'Server Error', code: 504 },
    })
  })

  it('answers 503/504 when the partner registry fails or hangs', async () => {
    const { auth: failing, headers } = await withPasscode({ partners: { isWhitelisted: () => Promise.reject(new Error('x')) } })
    expect(await failing.connect({ headers, partner: 'Acme' })).toMatchObject({ statusCode: 503 })
    const hanging = await withPasscode({ partners: { isWhitelisted: () => new Promise<boolean>(() => {}) }, timeoutMs: 20 })
    expect(await hanging.auth.connect({ headers: hanging.headers, partner: 'Acme' })).toMatchObject({ statusCode: 504 })
  })

  it('answers 503 when a synchronous registry throws, and 200/403 from a synchronous one without arming a deadline timer', async () => {
    const { auth: throwing, headers } = await withPasscode({
      partners: {
        isWhitelisted: () => {
          throw new Error('x')
        },
      },
    })
    expect(await throwing.connect({ headers, partner: 'Acme' })).toMatchObject({ statusCode: 503 })

    const sync = await withPasscode()
    await sync.auth.connect({ headers: sync.headers, partner: 'Acme' }) // warms the verification cache
    const timers = vi.spyOn(globalThis, 'setTimeout')
    try {
      expect(await sync.auth.connect({ headers: sync.headers, partner: 'Acme' })).toMatchObject({ statusCode: 200 })
      expect(await sync.auth.connect({ headers: sync.headers, partner: 'Globex' })).toMatchObject({ statusCode: 403 })
      expect(timers).not.toHaveBeenCalled()
    } finally {
      timers.mockRestore()
    }
  })
})

describe('SPEC 5.1 expired on connect', () => {
  it('answers 401 Passcode expired', async () => {
    const { auth, headers, clock } = await withPasscode()
    clock.advance(30 * DAY_MS)
    expect(await auth.connect({ headers, partner: 'Acme' })).toMatchObject({
      statusCode: 401,
      body: { status: 'fail', error: 'Passcode expired', code: 401 },
    })
  })
})

describe('SPEC 5.2 order of checks', () => {
  it('checks credentials before the partner', async () => {
    const { auth } = await withPasscode()
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': generatePasscode() }
    expect(await auth.connect({ headers, partner: 'Unlisted' })).toMatchObject({ statusCode: 400, body: INVALID_CREDENTIALS })
    expect(await auth.connect({ headers, partner: undefined })).toMatchObject({ statusCode: 400, body: INVALID_CREDENTIALS })
  })
})

describe('SPEC 5.3 partner names', () => {
  it('answers 400 Missing partner for a missing, blank or repeated partner', async () => {
    const { auth, headers } = await withPasscode()
    for (const partner of [undefined, null, '', '   ', ['Acme', 'Acme'], []]) {
      expect(await auth.connect({ headers, partner })).toMatchObject({
        statusCode: 400,
        body: { status: 'fail', error: 'Missing partner', code: 400 },
      })
    }
    expect(await auth.connect({ headers, partner: ['Acme'] })).toMatchObject({ statusCode: 200 })
  })

  it('compares after trimming, case-insensitively', async () => {
    const { auth, headers } = await withPasscode()
    for (const partner of ['acme', 'ACME', '  Acme\t', 'aCmE ']) {
      expect(await auth.connect({ headers, partner })).toMatchObject({ statusCode: 200 })
    }
  })

  it('echoes the name as sent, without control characters, cut to 128 characters', async () => {
    const { auth, headers } = await withPasscode()
    const sent = `\u0000Evil\u001b[31m\nCorp\u007f${'x'.repeat(500)}`
    const result = await auth.connect({ headers, partner: sent })
    expect(result.statusCode).toBe(403)
    const error = (result.body as { error: string }).error
    expect(error).toBe(`Partner not whitelisted ${`Evil[31mCorp${'x'.repeat(500)}`.slice(0, 128)}`)
    expect(error).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  })

  it('removes invisible characters from the echo too: U+2028, U+202E, zero-width, unpaired surrogates (SPEC 5.24)', async () => {
    const { auth, headers } = await withPasscode()
    const result = await auth.connect({ headers, partner: 'Evil\u2028Corp\u202Egnp.exe\u200B\u2066\uFEFF\uD800x' })
    expect(result).toMatchObject({ statusCode: 403, body: { error: 'Partner not whitelisted EvilCorpgnp.exex' } })
  })

  it('never asks the registry about a name with a control character or over 128 characters (SPEC 5.22)', async () => {
    const asked: string[] = []
    const { auth, headers } = await withPasscode({ partners: { isWhitelisted: async (name) => (asked.push(name), true) } })
    for (const partner of ['a\u0000b', 'acme\u0085', '\u007facme', 'a\tb', 'x'.repeat(129), '\u00e9'.repeat(129)]) {
      expect(await auth.connect({ headers, partner })).toMatchObject({ statusCode: 403, reason: 'partner_not_whitelisted' })
    }
    expect(asked).toEqual([])
    // 128 characters (an astral one counts once) is still a name.
    for (const partner of ['x'.repeat(128), '\u{1F600}'.repeat(128), '  acme\t']) {
      expect(await auth.connect({ headers, partner })).toMatchObject({ statusCode: 200 })
    }
    expect(asked).toEqual(['x'.repeat(128), '\u{1F600}'.repeat(128), 'acme'])
  })

  it('never splits a surrogate pair when cutting (property)', async () => {
    const { auth, headers } = await withPasscode()
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }), async (partner) => {
        fc.pre(partner.trim() !== '' && partner.trim().toLowerCase() !== 'acme')
        const result = await auth.connect({ headers, partner })
        expect(result.statusCode).toBe(403)
        const echoed = (result.body as { error: string }).error.slice('Partner not whitelisted '.length)
        expect(Array.from(echoed).length).toBeLessThanOrEqual(128)
        expect(echoed).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
      }),
      { numRuns: 300, seed: 17 },
    )
  })
})

describe('SPEC 5.4 header hygiene', () => {
  it('treats missing, empty, repeated, long or non-visible-ASCII headers as Invalid Credentials', async () => {
    const { auth, value } = await withPasscode()
    const bad: Record<string, unknown>[] = [
      {},
      { 'x-service-account-id': 'acc' },
      { 'x-service-passcode': value },
      { 'x-service-account-id': '', 'x-service-passcode': value },
      { 'x-service-account-id': 'acc', 'x-service-passcode': '' },
      { 'x-service-account-id': ['acc', 'acc'], 'x-service-passcode': value },
      { 'x-service-account-id': 'acc', 'x-service-passcode': [value, value] },
      { 'x-service-account-id': 'acc', 'X-Service-Passcode': value, 'x-service-passcode': value },
      { 'x-service-account-id': 'acc', 'x-service-passcode': `${value}, ${value}` },
      { 'x-service-account-id': 'a'.repeat(257), 'x-service-passcode': value },
      { 'x-service-account-id': 'acc', 'x-service-passcode': `${value}${'a'.repeat(257 - value.length)}` },
      { 'x-service-account-id': 'acc', 'x-service-passcode': `${value.slice(0, -1)}é` },
      { 'x-service-account-id': 'ac c', 'x-service-passcode': value },
      { 'x-service-account-id': 'acc\t', 'x-service-passcode': value },
    ]
    for (const headers of bad) {
      expect(await auth.connect({ headers: headers as never, partner: 'Acme' })).toMatchObject({
        statusCode: 400,
        body: INVALID_CREDENTIALS,
      })
    }
  })

  it('accepts header names in any case, and a Fetch Headers object', async () => {
    const { auth, value } = await withPasscode()
    for (const headers of [
      { 'X-Service-Account-Id': 'acc', 'X-SERVICE-PASSCODE': value },
      { 'x-SERVICE-account-ID': 'acc', 'x-service-passcode': [value] },
      new Headers({ 'X-Service-Account-Id': 'acc', 'X-Service-Passcode': value }),
    ]) {
      expect(await auth.connect({ headers, partner: 'Acme' })).toMatchObject({ statusCode: 200 })
    }
  })

  it('answers only the bodies of SPEC 4/5 for arbitrary header values (property)', async () => {
    const { auth } = await withPasscode()
    const allowed = new Set([JSON.stringify(INVALID_CREDENTIALS)])
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), async (accountId, passcode) => {
        const result = await auth.connect({ headers: { 'x-service-account-id': accountId, 'x-service-passcode': passcode }, partner: 'Acme' })
        expect(allowed.has(JSON.stringify(result.body))).toBe(true)
      }),
      { numRuns: 1000, seed: 23 },
    )
  })
})
