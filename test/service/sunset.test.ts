import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../src/core/time'
import { admin, setup, TEST_KEY } from '../helpers/service'

/**
 * Expiry warnings that reach partners: an answer authenticated by a passcode in its
 * last `limits.expiringSoonDays` days (30) carries `Sunset` (RFC 8594) with the expiry
 * instant, on connect and on protected routes (the adapters add `outcome.headers` to
 * the host's answer; the HTTP conformance suite checks every adapter), unless the host
 * turns it off. The window is the one of the `expiring_soon` status (SPEC §5.7).
 */
const sunsetOf = (outcome: { ok: boolean; headers?: Readonly<Record<string, string>> }) => (outcome.ok ? outcome.headers?.sunset : 'refused')

describe('the Sunset header', () => {
  it('from 30 days before the expiry on, the same boundary as the expiring_soon status', async () => {
    const { auth, clock } = setup()
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 45 })
    const check = () => auth.authenticate({ accountId: 'acc', passcode: value })
    expect(sunsetOf(await check())).toBeUndefined()
    clock.advance(15 * DAY_MS - 1)
    expect(sunsetOf(await check())).toBeUndefined() // a cache hit, one millisecond before the window
    expect((await auth.passcodes.list(admin, 'acc'))[0]?.status).toBe('active')
    clock.advance(1)
    expect(sunsetOf(await check())).toBe('Sun, 15 Feb 2026 00:00:00 GMT')
    expect((await auth.passcodes.list(admin, 'acc'))[0]).toMatchObject({ id: passcode.id, status: 'expiring_soon' })
    clock.advance(30 * DAY_MS - 1)
    expect(sunsetOf(await check())).toBe('Sun, 15 Feb 2026 00:00:00 GMT')
    clock.advance(1)
    expect(await check()).toMatchObject({ ok: false, statusCode: 401 })
  })

  it('on GET /v1/connect when it succeeds, never on a refusal', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 10 })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    expect((await auth.connect({ headers, partner: 'acme' })).headers).toEqual({ sunset: 'Sun, 11 Jan 2026 00:00:00 GMT' })
    expect((await auth.connect({ headers, partner: 'globex' })).headers).toBeUndefined()
    expect((await auth.connect({ headers, partner: undefined })).headers).toBeUndefined()
  })

  it('never for a passcode that does not expire, and for user passcodes of finite validity too', async () => {
    const { auth } = setup({ encryptionKeys: [{ id: 'k1', key: TEST_KEY }] })
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    const forever = await auth.passcodes.create(admin, 'acc', { name: 'Forever', expiry: 'forever' })
    expect(sunsetOf(await auth.authenticate({ accountId: 'acc', passcode: forever.value }))).toBeUndefined()
    await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'finite', days: 7 } })
    const own = await auth.userPasscodes.reveal({ userId: 'u1', role: 'member' }, 'acc')
    expect(sunsetOf(await auth.authenticate({ accountId: 'acc', passcode: own.value }))).toBe('Thu, 08 Jan 2026 00:00:00 GMT')
  })

  it('follows limits.expiringSoonDays, and sunsetHeader: false turns it off on every path', async () => {
    const short = setup({ limits: { expiringSoonDays: 5 } })
    const soon = await short.auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 6 })
    expect(sunsetOf(await short.auth.authenticate({ accountId: 'acc', passcode: soon.value }))).toBeUndefined()
    short.clock.advance(DAY_MS)
    expect(sunsetOf(await short.auth.authenticate({ accountId: 'acc', passcode: soon.value }))).toBe('Wed, 07 Jan 2026 00:00:00 GMT')

    const off = setup({ sunsetHeader: false })
    const { value } = await off.auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 3 })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    for (let i = 0; i < 2; i++) {
      // Verified, then from the cache.
      expect(await off.auth.authenticate({ accountId: 'acc', passcode: value })).not.toHaveProperty('headers')
      expect(await off.auth.connect({ headers, partner: 'acme' })).not.toHaveProperty('headers')
    }
  })

  it('rejects a sunsetHeader option that is not a boolean', () => {
    expect(() => setup({ sunsetHeader: 'no' as never })).toThrow(/sunsetHeader/)
  })
})
