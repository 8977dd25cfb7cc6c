import { describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, type AuditEvent, type AuthOutcome, type CredentialsInput, type PasscodeAuth, type Principal } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { nodeRequestReader, type NodeRequestLike } from '../../src/http/node/node-request'
import { admin, manualClock } from '../helpers/service'

type Request = NodeRequestLike & { readonly ip?: string }
const reader = nodeRequestReader(
  (request: Request) => request,
  (request) => request.ip,
)
const headersOf = (accountId: string, passcode: string): Request => ({
  headers: { 'x-service-account-id': accountId, 'x-service-passcode': passcode },
  ip: '192.0.2.1',
})

/** The answer, and whether it came synchronously (a cache hit). */
async function answer(auth: Pick<PasscodeAuth, 'verifyRequest'>, request: Request) {
  const result = auth.verifyRequest(request, reader)
  return result instanceof Promise ? { sync: false, outcome: await result } : { sync: true, outcome: { ok: true, principal: result } as AuthOutcome }
}

describe('auth.verifyRequest (the one warm path of every requirePasscode)', () => {
  it('answers the principal synchronously once the full path has cached it, with the same audit event', async () => {
    const events: AuditEvent[] = []
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock(), onEvent: (event) => void events.push(event) })
    const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const request = headersOf('acc_1', value)

    const first = await answer(auth, request)
    expect(first.sync).toBe(false)
    expect(first.outcome.ok).toBe(true)
    const second = await answer(auth, request)
    expect(second.sync).toBe(true)
    const principal = second.outcome.ok ? second.outcome.principal : undefined
    expect(principal).toEqual({ accountId: 'acc_1', kind: 'account', passcodeId: passcode.id, passcodeName: 'Partner A' })
    expect(principal).toBe(first.outcome.ok ? first.outcome.principal : undefined)
    expect(events.filter((event) => event.type === 'auth.succeeded')).toHaveLength(2)
    expect(events.at(-1)).toMatchObject({ type: 'auth.succeeded', accountId: 'acc_1', principal })
  })

  it('hits the same way through a reader with a header getter only (no header record), as a Fetch request has', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock() })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const getterOnly = { ...reader, headerRecord: undefined, header: vi.fn(reader.header) }
    const authenticateRequest = (request: Request) => auth.verifyRequest(request, getterOnly)
    expect(await authenticateRequest(headersOf('acc_1', value))).toMatchObject({ ok: true })
    getterOnly.header.mockClear()
    expect(authenticateRequest(headersOf('acc_1', value))).toMatchObject({ accountId: 'acc_1', kind: 'account' })
    expect(getterOnly.header.mock.calls.map(([, name]) => name)).toEqual(['x-service-passcode', 'x-service-account-id'])
    expect(authenticateRequest(headersOf('acc_1', `${value}, ${value}`))).toBeInstanceOf(Promise)
  })

  it('never hits for another account, a repeated or missing header, or a deleted passcode', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock() })
    const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    await answer(auth, headersOf('acc_1', value))
    expect((await answer(auth, headersOf('acc_1', value))).sync).toBe(true)

    expect(await answer(auth, headersOf('acc_2', value))).toMatchObject({ sync: false, outcome: { ok: false, reason: 'wrong_account' } })
    expect(await answer(auth, headersOf('acc_1, acc_1', value))).toMatchObject({ sync: false, outcome: { ok: false, statusCode: 400 } })
    expect(await answer(auth, headersOf('acc_1', `${value}, ${value}`))).toMatchObject({ sync: false, outcome: { ok: false, statusCode: 400 } })
    expect(await answer(auth, { headers: { 'x-service-passcode': value } })).toMatchObject({ sync: false, outcome: { ok: false, statusCode: 400 } })
    expect(await answer(auth, { headers: { 'x-service-account-id': 'acc_1' } })).toMatchObject({
      sync: false,
      outcome: { ok: false, statusCode: 400 },
    })

    await auth.passcodes.delete(admin, 'acc_1', passcode.id)
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: false, outcome: { ok: false, statusCode: 400 } })
  })

  it('stops at the passcode expiry, after which the full path answers 401', async () => {
    const clock = manualClock()
    // Without Sunset headers, which would send a passcode in its last days the full way.
    const auth = createPasscodeAuth({ store: memoryStore(), clock, cache: { ttlMs: 86_400_000, maxEntries: 10 }, sunsetHeader: false })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 1 })
    clock.advance(60_000) // the cache's one-day TTL now reaches past the expiry
    await answer(auth, headersOf('acc_1', value))
    clock.advance(86_400_000 - 60_000 - 1)
    expect((await answer(auth, headersOf('acc_1', value))).sync).toBe(true)
    clock.advance(1)
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: false, outcome: { ok: false, statusCode: 401 } })
  })

  it('sends a passcode in its last 30 days the full way, for its Sunset header, still without a storage read', async () => {
    const clock = manualClock()
    const store = memoryStore()
    let reads = 0
    const counting = new Proxy(store, {
      get: (target, property, receiver) =>
        property === 'findCredentialByHash'
          ? (hash: string) => (reads++, target.findCredentialByHash(hash))
          : Reflect.get(target, property, receiver),
    })
    const auth = createPasscodeAuth({ store: counting, clock, cache: { ttlMs: 86_400_000, maxEntries: 10 } })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 31 })
    clock.advance(86_400_000 - 60_000) // 30 days and a minute left
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: false, outcome: { ok: true } })
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: true, outcome: { ok: true } })
    clock.advance(60_000) // 30 days left: the cached entry now owes a Sunset header
    expect(await answer(auth, headersOf('acc_1', value))).toEqual({
      sync: false,
      outcome: { ok: true, principal: expect.objectContaining({ accountId: 'acc_1' }), headers: { sunset: 'Sun, 01 Feb 2026 00:00:00 GMT' } },
    })
    expect(reads).toBe(1)
  })

  it('takes the full path every time without a cache, with a limiter store that answers with promises, and for a stand-in', async () => {
    const asyncStore = { retryAfterMs: vi.fn(async () => 0), recordFailure: async () => undefined }
    for (const options of [{ cache: false as const }, { rateLimit: { store: asyncStore } }]) {
      const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock(), ...options })
      const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
      for (let i = 0; i < 3; i++) expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: false, outcome: { ok: true } })
    }
    // The pipeline asks the limiter store once per request, and waits for its answer.
    expect(asyncStore.retryAfterMs).toHaveBeenCalledTimes(3)
    const standIn = { verifyRequest: async () => ({ ok: true, principal: { accountId: 'x', kind: 'user', userId: 'u' } }) as AuthOutcome }
    expect(await answer(standIn, headersOf('acc_1', 'psc_x'))).toMatchObject({ sync: false, outcome: { ok: true } })
  })

  it('keeps the synchronous hit with the limiter on its memory store, until the address is limited: then the 429', async () => {
    const clock = manualClock()
    const events: AuditEvent[] = []
    const auth = createPasscodeAuth({
      store: memoryStore(),
      clock,
      onEvent: (event) => void events.push(event),
      rateLimit: { maxFailuresPerAddress: 3, maxFailuresPerAccount: 1_000, windowMs: 5_000 },
    })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    expect((await answer(auth, headersOf('acc_1', value))).sync).toBe(false)
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: true, outcome: { ok: true } })
    // Another address fails three times: only it is limited.
    const other = (passcode: string): Request => ({ ...headersOf('acc_1', passcode), ip: '198.51.100.9' })
    for (let i = 0; i < 3; i++) expect((await answer(auth, other('psc_wrong'))).outcome).toMatchObject({ ok: false, statusCode: 400 })
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: true, outcome: { ok: true } })
    const limited = await answer(auth, other(value))
    expect(limited).toMatchObject({ sync: false, outcome: { ok: false, reason: 'rate_limited', statusCode: 429 } })
    expect(!limited.outcome.ok && limited.outcome.headers).toEqual({ 'retry-after': '5' })
    expect(events.at(-1)).toMatchObject({ type: 'auth.failed', reason: 'rate_limited', statusCode: 429 })
    // Once the window has passed, the cached credentials hit at once from there too.
    clock.advance(5_001)
    expect(await answer(auth, other(value))).toMatchObject({ sync: true, outcome: { ok: true } })
  })

  it('keeps the synchronous hit with a store of the host that answers synchronously, and takes the full path while it throws', async () => {
    let failing = false
    const store = {
      retryAfterMs: vi.fn(() => {
        if (failing) throw new Error('store down')
        return 0
      }),
      recordFailure: () => undefined,
    }
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock(), rateLimit: { store } })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    await answer(auth, headersOf('acc_1', value))
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: true, outcome: { ok: true } })
    failing = true
    // A failing limiter store never refuses valid credentials (it lets them through the full path).
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: false, outcome: { ok: true } })
    failing = false
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: true, outcome: { ok: true } })
  })

  it('keeps the synchronous hit with a per-account limit only: an account past its count still lets valid credentials through', async () => {
    const auth = createPasscodeAuth({
      store: memoryStore(),
      clock: manualClock(),
      rateLimit: { maxFailuresPerAddress: false, maxFailuresPerAccount: 2 },
    })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    await answer(auth, headersOf('acc_1', value))
    for (let i = 0; i < 3; i++) await answer(auth, headersOf('acc_1', 'psc_wrong'))
    expect((await answer(auth, headersOf('acc_1', 'psc_wrong'))).outcome).toMatchObject({ ok: false, statusCode: 429 })
    expect(await answer(auth, headersOf('acc_1', value))).toMatchObject({ sync: true, outcome: { ok: true } })
  })

  it('is a plain member: a host that replaces or wraps it gets its own called, and replacing authenticate changes nothing else', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock() })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    await answer(auth, headersOf('acc_1', value))
    expect((await answer(auth, headersOf('acc_1', value))).sync).toBe(true)
    // auth.authenticate and auth.verifyRequest are two entries of one pipeline: neither looks for the other.
    const replacement = vi.fn(async (_input: CredentialsInput): Promise<AuthOutcome> => ({
      ok: false,
      reason: 'revoked',
      statusCode: 400,
      body: { status: 'fail', error: 'Invalid Credentials', code: 400 },
    }))
    ;(auth as { authenticate: PasscodeAuth['authenticate'] }).authenticate = replacement
    expect((await answer(auth, headersOf('acc_1', value))).sync).toBe(true)
    expect(replacement).not.toHaveBeenCalled()
    // A host that wraps the service (here through its prototype chain) with its own verifyRequest gets it called.
    const refused = vi.fn((): Principal | Promise<AuthOutcome> =>
      Promise.resolve({ ok: false, reason: 'revoked', statusCode: 400, body: { status: 'fail', error: 'Invalid Credentials', code: 400 } }),
    )
    const wrapped = Object.assign(Object.create(auth) as typeof auth, { verifyRequest: refused })
    expect(await answer(wrapped, headersOf('acc_1', value))).toMatchObject({ sync: false, outcome: { ok: false, reason: 'revoked' } })
    expect(refused).toHaveBeenCalledTimes(1)
    // One that hands the call on keeps the warm path.
    const handingOn = { verifyRequest: auth.verifyRequest }
    expect((await answer(handingOn, headersOf('acc_1', value))).sync).toBe(true)
  })

  it('reads the client address only when the service limits by address', async () => {
    const cases = [
      [{}, 0],
      [{ rateLimit: { maxFailuresPerAddress: false as const } }, 0],
      [{ rateLimit: {} }, 1],
    ] as const
    for (const [options, reads] of cases) {
      const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock(), ...options })
      const clientAddress = vi.fn((request: Request) => request.ip)
      await auth.verifyRequest(headersOf('acc_1', 'psc_wrong'), { ...reader, clientAddress })
      expect(clientAddress).toHaveBeenCalledTimes(reads)
    }
  })

  it('stays out of the public shape of the service', () => {
    const auth = createPasscodeAuth({ store: memoryStore() })
    expect(Object.keys(auth)).not.toContain('usesClientAddress')
    expect(Object.getOwnPropertySymbols(auth)).toEqual([])
    expect(Object.keys(auth.authenticate)).toEqual([])
  })
})
