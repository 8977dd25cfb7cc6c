import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, type AuditEvent } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { cachedPrincipalReader } from '../../src/http/cached-principal'
import { authenticateNodeRequest } from '../../src/http/node-request'
import { admin, manualClock } from '../helpers/service'

const headersOf = (accountId: string, passcode: string) => ({ headers: { 'x-service-account-id': accountId, 'x-service-passcode': passcode } })

describe('cachedPrincipalReader (the synchronous warm path of requirePasscode)', () => {
  it('answers only from the cache: nothing before the first full verification, the same principal after', async () => {
    const events: AuditEvent[] = []
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock(), onEvent: (event) => void events.push(event) })
    const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const read = cachedPrincipalReader(auth)!
    expect(read).toBeTypeOf('function')
    const request = headersOf('acc_1', value)

    expect(read(request)).toBeUndefined()
    const outcome = await authenticateNodeRequest(auth, request)
    expect(outcome.ok).toBe(true)
    const principal = read(request)
    expect(principal).toEqual({ accountId: 'acc_1', kind: 'account', passcodeId: passcode.id, passcodeName: 'Partner A' })
    expect(principal).toBe(outcome.ok ? outcome.principal : undefined)
    // The same audit event as the asynchronous path.
    expect(events.filter((event) => event.type === 'auth.succeeded')).toHaveLength(2)
    expect(events.at(-1)).toMatchObject({ type: 'auth.succeeded', accountId: 'acc_1', principal })
  })

  it('never hits for another account, a repeated or missing header, or a deleted passcode', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock() })
    const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const read = cachedPrincipalReader(auth)!
    await authenticateNodeRequest(auth, headersOf('acc_1', value))
    expect(read(headersOf('acc_1', value))).toBeDefined()

    expect(read(headersOf('acc_2', value))).toBeUndefined()
    expect(read(headersOf('acc_1, acc_1', value))).toBeUndefined()
    expect(read(headersOf('acc_1', `${value}, ${value}`))).toBeUndefined()
    expect(read({ headers: { 'x-service-passcode': value } })).toBeUndefined()
    expect(read({ headers: { 'x-service-account-id': 'acc_1' } })).toBeUndefined()

    await auth.passcodes.delete(admin, 'acc_1', passcode.id)
    expect(read(headersOf('acc_1', value))).toBeUndefined()
    expect(await authenticateNodeRequest(auth, headersOf('acc_1', value))).toMatchObject({ ok: false, statusCode: 400 })
  })

  it('stops at the passcode expiry, after which the full path answers 401', async () => {
    const clock = manualClock()
    const auth = createPasscodeAuth({ store: memoryStore(), clock, cache: { ttlMs: 86_400_000, maxEntries: 10 } })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 1 })
    const read = cachedPrincipalReader(auth)!
    clock.advance(60_000) // the cache's one-day TTL now reaches past the expiry
    await authenticateNodeRequest(auth, headersOf('acc_1', value))
    clock.advance(86_400_000 - 60_000 - 1)
    expect(read(headersOf('acc_1', value))).toBeDefined()
    clock.advance(1)
    expect(read(headersOf('acc_1', value))).toBeUndefined()
    expect(await authenticateNodeRequest(auth, headersOf('acc_1', value))).toMatchObject({ ok: false, statusCode: 401 })
  })

  it('is absent without a cache, with the rate limiter on, and for a stand-in auth object', () => {
    expect(cachedPrincipalReader(createPasscodeAuth({ store: memoryStore(), cache: false }))).toBeUndefined()
    expect(cachedPrincipalReader(createPasscodeAuth({ store: memoryStore(), rateLimit: {} }))).toBeUndefined()
    expect(cachedPrincipalReader({ authenticate: async () => ({ ok: true }) })).toBeUndefined()
  })

  it('steps aside while auth.authenticate is replaced, so the replacement is called', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock() })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const read = cachedPrincipalReader(auth)!
    await authenticateNodeRequest(auth, headersOf('acc_1', value))
    expect(read(headersOf('acc_1', value))).toBeDefined()
    const original = auth.authenticate
    ;(auth as { authenticate: typeof original }).authenticate = async () => ({ ok: false, reason: 'revoked', statusCode: 400, body: { status: 'fail', error: 'Invalid Credentials', code: 400 } })
    expect(read(headersOf('acc_1', value))).toBeUndefined()
    ;(auth as { authenticate: typeof original }).authenticate = original
    expect(read(headersOf('acc_1', value))).toBeDefined()
    // A service reached through its prototype chain, with its own authenticate, never takes the shortcut.
    const wrapped = Object.assign(Object.create(auth) as typeof auth, { authenticate: original.bind(auth) })
    expect(cachedPrincipalReader(wrapped)?.(headersOf('acc_1', value))).toBeUndefined()
  })

  it('stays out of the public shape of the service', () => {
    const auth = createPasscodeAuth({ store: memoryStore() })
    expect(Object.keys(auth)).not.toContain('authenticateCached')
    expect(Object.getOwnPropertySymbols(auth).every((symbol) => !Object.getOwnPropertyDescriptor(auth, symbol)!.enumerable)).toBe(true)
  })
})
