import { describe, expect, it, vi } from 'vitest'
import { InvalidInputError, InvalidOptionsError } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { nodeRequestReader } from '../../src/http/node/node-request'
import { admin, member, setup } from '../helpers/service'

const SCOPES = { 'events:read': 'Read events', 'events:write': 'Send events', 'reports:read': 'Read reports' }
const MISSING_WRITE = { status: 'fail', error: 'Missing scope: events:write', code: 403 }
const ADDRESS_NOT_ALLOWED = { status: 'fail', error: 'Address not allowed', code: 403 }

/** A request to `verifyRequest` with these credentials and this client address (or none). */
function request(accountId: string, passcode: string, clientAddress?: string) {
  const address = vi.fn(() => clientAddress)
  const reader = { ...nodeRequestReader((source: { headers: Record<string, string> }) => source, address), clientAddress: address }
  return { source: { headers: { 'x-service-account-id': accountId, 'x-service-passcode': passcode } }, reader, address }
}

describe('SPEC 5.48 scopes', () => {
  it('grants every declared scope by default and a listed subset when given; the principal lists what it grants', async () => {
    const { auth } = setup({ scopes: SCOPES })
    const all = await auth.passcodes.create(admin, 'acc', { name: 'All', expiry: 90 })
    const some = await auth.passcodes.create(admin, 'acc', { name: 'Some', expiry: 90, scopes: ['reports:read', 'events:read', 'events:read'] })
    expect(all.passcode).toMatchObject({ scopes: null, unknownScopes: [] })
    expect(some.passcode).toMatchObject({ scopes: ['events:read', 'reports:read'] })
    expect(await auth.authenticate({ accountId: 'acc', passcode: all.value })).toMatchObject({
      ok: true,
      principal: { scopes: ['events:read', 'events:write', 'reports:read'] },
    })
    expect(await auth.authenticate({ accountId: 'acc', passcode: some.value })).toMatchObject({
      ok: true,
      principal: { scopes: ['events:read', 'reports:read'] },
    })
  })

  it('refuses a scope the host does not declare, naming it, and writes nothing', async () => {
    const { auth, store } = setup({ scopes: SCOPES })
    const create = auth.passcodes.create(admin, 'acc', { name: 'Bad', expiry: 90, scopes: ['events:read', 'events:delete'] })
    await expect(create).rejects.toBeInstanceOf(InvalidInputError)
    await expect(create).rejects.toMatchObject({ field: 'scopes', message: expect.stringContaining('"events:delete"') })
    expect(await store.listAccountPasscodes('acc')).toEqual([])
    await expect(auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' }, scopes: ['nope'] })).rejects.toMatchObject({
      field: 'scopes',
    })
    expect(await store.getUserPasscode('acc', 'u1')).toBeNull()
    // Malformed names are refused by form, before the declared list is read.
    await expect(auth.passcodes.create(admin, 'acc', { name: 'Bad', expiry: 90, scopes: ['Events'] })).rejects.toMatchObject({ field: 'scopes.0' })
  })

  it("answers the route's first missing scope with the 403 of SPEC 5.48, counted as a refusal, and costs no store read once cached", async () => {
    const { auth, store, events } = setup({ scopes: SCOPES })
    const reads = vi.spyOn(store, 'findCredentialByHash')
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Reader', expiry: 90, scopes: ['events:read'] })
    const required = auth.requiredScopes(['events:read', 'events:write', 'reports:read'])
    const { source, reader } = request('acc', value)
    const first = await auth.verifyRequest(source, reader, required)
    expect(first).toMatchObject({ ok: false, statusCode: 403, body: MISSING_WRITE, reason: 'missing_scope' })
    expect(reads).toHaveBeenCalledTimes(1)
    // The acceptance cache holds the principal: the next refusal reads nothing.
    const again = await auth.verifyRequest(source, reader, required)
    expect(again).toMatchObject({ statusCode: 403, body: MISSING_WRITE })
    expect(reads).toHaveBeenCalledTimes(1)
    // A route needing only what it grants lets it through, synchronously on the warm cache.
    expect(auth.verifyRequest(source, reader, auth.requiredScopes(['events:read']))).toMatchObject({ kind: 'account', scopes: ['events:read'] })
    expect(events.filter((event) => event.type === 'auth.failed')).toMatchObject([
      { reason: 'missing_scope', statusCode: 403 },
      { reason: 'missing_scope', statusCode: 403 },
    ])
  })

  it('an edit takes effect at once (the invalidation), and a scope the host stops declaring grants nothing and is shown unknown', async () => {
    const store = memoryStore()
    const { auth } = setup({ store, scopes: SCOPES })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Writer', expiry: 90, scopes: ['events:write'] })
    const write = auth.requiredScopes(['events:write'])
    const { source, reader } = request('acc', value)
    expect(await auth.verifyRequest(source, reader, write)).toMatchObject({ ok: true, principal: { kind: 'account' } })
    await auth.passcodes.update(admin, 'acc', passcode.id, { scopes: ['events:read'] })
    expect(await auth.verifyRequest(source, reader, write)).toMatchObject({ statusCode: 403, body: MISSING_WRITE })

    // The host stops declaring `events:read`.
    const later = setup({ store, scopes: { 'reports:read': 'Read reports', 'events:write': 'Send events' } }).auth
    const [view] = await later.passcodes.list(member, 'acc')
    expect(view).toMatchObject({ scopes: ['events:read'], unknownScopes: ['events:read'] })
    expect(await later.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ ok: true, principal: { scopes: [] } })
  })

  it('refuses a guard that names a scope the host does not declare, when it is made', () => {
    const { auth } = setup({ scopes: SCOPES })
    expect(() => auth.requiredScopes(['events:delete'])).toThrow(InvalidOptionsError)
    expect(() => auth.requiredScopes(['events:delete'])).toThrow(/"events:delete" is not a declared scope/)
    expect(() => setup({ scopes: { Events: 'x' } })).toThrow(/scopes/)
  })

  it('lists the declared scopes with their descriptions, in the order declared, for the dashboard (GET /scopes); none without the option', () => {
    expect(setup({ scopes: SCOPES }).auth.scopes.list()).toEqual([
      { name: 'events:read', description: 'Read events' },
      { name: 'events:write', description: 'Send events' },
      { name: 'reports:read', description: 'Read reports' },
    ])
    expect(setup().auth.scopes.list()).toEqual([])
  })
})

describe('SPEC 5.49 address allowlist', () => {
  it('lets a passcode through from its ranges only (mapped and NAT64 callers match their IPv4 range), refusing with the 403 of SPEC 5.49', async () => {
    const { auth } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Office', expiry: 90, allowedAddresses: ['192.0.2.0/24', '2001:db8::/32'] })
    const from = (clientAddress: string) => auth.authenticate({ accountId: 'acc', passcode: value, clientAddress })
    for (const allowed of ['192.0.2.7', '::ffff:192.0.2.7', '::FFFF:c000:0207', '64:ff9b::c000:207', '2001:db8:1::1']) {
      expect(await from(allowed), allowed).toMatchObject({ ok: true })
    }
    for (const refused of ['192.0.3.1', '::ffff:192.0.3.1', '2001:db9::1', '64:ff9b::c000:307']) {
      expect(await from(refused), refused).toMatchObject({ ok: false, statusCode: 403, body: ADDRESS_NOT_ALLOWED })
    }
  })

  it('fails closed without a client address, and says so once', async () => {
    const { auth, events } = setup()
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Office', expiry: 90, allowedAddresses: ['192.0.2.0/24'] })
    const open = await auth.passcodes.create(admin, 'acc', { name: 'Open', expiry: 90 })
    const { source, reader } = request('acc', value)
    expect(await auth.verifyRequest(source, reader)).toMatchObject({ ok: false, statusCode: 403, body: ADDRESS_NOT_ALLOWED })
    expect(await auth.verifyRequest(source, reader)).toMatchObject({ statusCode: 403 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ statusCode: 403 })
    expect(events.filter((event) => event.type === 'allowlist.no_client_address')).toHaveLength(1)
    // A passcode without ranges needs no address.
    expect(await auth.authenticate({ accountId: 'acc', passcode: open.value })).toMatchObject({ ok: true })
  })

  it('refuses malformed ranges, host bits and a 51st range, naming the field; nothing written', async () => {
    const { auth, store } = setup()
    const create = (allowedAddresses: string[]) => auth.passcodes.create(admin, 'acc', { name: 'X', expiry: 90, allowedAddresses })
    await expect(create(['192.0.2.1/24'])).rejects.toMatchObject({ field: 'allowedAddresses.0' })
    await expect(create(['192.0.2.0/33'])).rejects.toMatchObject({ field: 'allowedAddresses.0' })
    await expect(create(['not an address'])).rejects.toMatchObject({ field: 'allowedAddresses.0' })
    await expect(create(Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`))).rejects.toMatchObject({ field: 'allowedAddresses' })
    expect(await store.listAccountPasscodes('acc')).toEqual([])
    expect((await create(Array.from({ length: 50 }, (_, i) => `10.0.${i}.0/24`))).passcode.allowedAddresses).toHaveLength(50)
  })
})

describe('SPEC 5.48-5.51 bounds: the last value accepted and the first refused', () => {
  const refusedOn = (field: RegExp) => expect.objectContaining({ name: 'InvalidInputError', field: expect.stringMatching(field) })

  it('declares up to 100 scopes of up to 64 characters (SPEC 5.48)', () => {
    const declare = (count: number, name = (i: number) => `scope.${i}`) =>
      setup({ scopes: Object.fromEntries(Array.from({ length: count }, (_, i) => [name(i), `Scope ${i}`])) })
    expect(declare(100).auth.scopes.list()).toHaveLength(100)
    expect(() => declare(101)).toThrow(InvalidOptionsError)
    const long = (length: number) => (i: number) => `s${String(i)}`.padEnd(length, 'x')
    expect(
      declare(2, long(64))
        .auth.scopes.list()
        .map((scope) => scope.name.length),
    ).toEqual([64, 64])
    expect(() => declare(2, long(65))).toThrow(InvalidOptionsError)
  })

  it('takes a rate limit of 1 to 1 000 000 requests per 1 to 86 400 s, and 0 to 10^12 credits (SPEC 5.50)', async () => {
    const { auth } = setup()
    let n = 0
    const create = (fields: object) => auth.passcodes.create(admin, 'acc', { name: `Bounds ${++n}`, expiry: 90, ...fields })
    await expect(create({ rateLimit: { max: 1_000_000, windowSeconds: 86_400 } })).resolves.toMatchObject({
      passcode: { rateLimit: { max: 1_000_000, windowSeconds: 86_400 } },
    })
    await expect(create({ rateLimit: { max: 1, windowSeconds: 1 } })).resolves.toBeDefined()
    await expect(create({ rateLimit: { max: 1_000_001, windowSeconds: 60 } })).rejects.toEqual(refusedOn(/^rateLimit/))
    await expect(create({ rateLimit: { max: 0, windowSeconds: 60 } })).rejects.toEqual(refusedOn(/^rateLimit/))
    await expect(create({ rateLimit: { max: 10, windowSeconds: 86_401 } })).rejects.toEqual(refusedOn(/^rateLimit/))
    await expect(create({ rateLimit: { max: 10, windowSeconds: 0 } })).rejects.toEqual(refusedOn(/^rateLimit/))
    await expect(create({ credits: { remaining: 1_000_000_000_000 } })).resolves.toMatchObject({
      passcode: { credits: { remaining: 1_000_000_000_000 } },
    })
    await expect(create({ credits: { remaining: 0 } })).resolves.toBeDefined()
    await expect(create({ credits: { remaining: 1_000_000_000_001 } })).rejects.toEqual(refusedOn(/^credits/))
    await expect(create({ credits: { remaining: -1 } })).rejects.toEqual(refusedOn(/^credits/))
  })

  it('takes up to 20 tags of 1 to 32 characters, and metadata of up to 1 KiB as JSON (SPEC 5.51)', async () => {
    const { auth } = setup()
    let n = 0
    const create = (fields: object) => auth.passcodes.create(admin, 'acc', { name: `Tags ${++n}`, expiry: 90, ...fields })
    const tags = (count: number) => Array.from({ length: count }, (_, i) => `tag${i}`)
    await expect(create({ tags: tags(20) })).resolves.toMatchObject({ passcode: { tags: expect.arrayContaining(tags(20)) } })
    await expect(create({ tags: tags(21) })).rejects.toEqual(refusedOn(/^tags/))
    await expect(create({ tags: ['t'.repeat(32), 'u'] })).resolves.toBeDefined()
    await expect(create({ tags: ['t'.repeat(33)] })).rejects.toEqual(refusedOn(/^tags/))
    await expect(create({ tags: [''] })).rejects.toEqual(refusedOn(/^tags/))
    // {"note":"…"} is 11 bytes of JSON around the text.
    const metadata = (bytes: number) => ({ note: 'x'.repeat(bytes - 11) })
    expect(new TextEncoder().encode(JSON.stringify(metadata(1024))).length).toBe(1024)
    await expect(create({ metadata: metadata(1024) })).resolves.toMatchObject({ passcode: { metadata: metadata(1024) } })
    await expect(create({ metadata: metadata(1025) })).rejects.toEqual(refusedOn(/^metadata/))
  })
})
