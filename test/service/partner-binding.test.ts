import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/index'
import { memoryStore } from '../../src/memory'
import type { PartnerRegistry } from '../../src/ports/partner-registry'
import { admin, setup } from '../helpers/service'

const forbidden = (name: string) => ({ statusCode: 403, body: { status: 'fail', error: `Partner not whitelisted ${name}`, code: 403 } })
const OK = { statusCode: 200, body: { status: 'success', message: 'Authorised Successfully.' } }

/** A whitelist the test can change while services run, as an operator would. */
function mutableWhitelist(names: string[]): PartnerRegistry & { remove(name: string): void } {
  const set = new Set(names)
  return { isWhitelisted: (name) => set.has(name), remove: (name) => set.delete(name) }
}

describe('SPEC 5.25 partner-bound passcodes', () => {
  const partners = ['Acme', 'Globex', 'Initech']

  it('a bound passcode succeeds on connect only for its partners; any other gets the 403 for that name', async () => {
    const { auth } = setup({ partners })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'For Acme', expiry: 30, partners: [' ACME ', 'globex'] })
    expect(passcode.partners).toEqual(['acme', 'globex'])
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    expect(await auth.connect({ headers, partner: 'Acme' })).toMatchObject(OK)
    expect(await auth.connect({ headers, partner: ' GLOBEX' })).toMatchObject(OK)
    expect(await auth.connect({ headers, partner: 'Initech' })).toMatchObject(forbidden('Initech'))
    // Not whitelisted at all: the same 403 as for any passcode.
    expect(await auth.connect({ headers, partner: 'Umbrella' })).toMatchObject(forbidden('Umbrella'))
  })

  it('checks credentials first: a wrong passcode never learns about the binding', async () => {
    const { auth } = setup({ partners })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Bound', expiry: 30, partners: ['acme'] })
    const headers = { 'x-service-account-id': 'other', 'x-service-passcode': value }
    expect(await auth.connect({ headers, partner: 'Initech' })).toMatchObject({ statusCode: 400 })
  })

  it('an unbound passcode works for every whitelisted partner, with the principal of before', async () => {
    const { auth } = setup({ partners })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Any', expiry: 90 })
    expect(passcode.partners).toBeNull()
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    for (const partner of partners) expect(await auth.connect({ headers, partner })).toMatchObject(OK)
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(outcome).toEqual({ ok: true, principal: { accountId: 'acc', kind: 'account', passcodeId: passcode.id, passcodeName: 'Any' } })
  })

  it('the principal carries the binding; other routes authenticate as usual', async () => {
    const { auth } = setup({ partners })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Bound', expiry: 90, partners: ['Globex', 'acme', 'ACME'] })
    const outcome = await auth.authenticate({ accountId: 'acc', passcode: value })
    expect(outcome).toEqual({
      ok: true,
      principal: { accountId: 'acc', kind: 'account', passcodeId: passcode.id, passcodeName: 'Bound', partners: ['acme', 'globex'] },
    })
  })

  it('refuses an empty list and names that are not whitelisted, naming the field', async () => {
    const { auth } = setup({ partners })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'E', expiry: 30, partners: [] })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'partners',
    })
    const unknown = auth.passcodes.create(admin, 'acc', { name: 'U', expiry: 30, partners: ['acme', 'Umbrella'] })
    await expect(unknown).rejects.toBeInstanceOf(InvalidInputError)
    await expect(unknown).rejects.toMatchObject({ field: 'partners', message: expect.stringContaining('"umbrella" is not a whitelisted partner') })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'B', expiry: 30, partners: ['  '] })).rejects.toMatchObject({ field: 'partners.0' })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'C', expiry: 30, partners: ['a\u0000b'] })).rejects.toMatchObject({
      field: 'partners.0',
    })
    await expect(auth.passcodes.create(admin, 'acc', { name: 'S', expiry: 30, partners: 'acme' as never })).rejects.toMatchObject({
      field: 'partners',
    })
    expect(await auth.passcodes.list(admin, 'acc')).toEqual([])
  })

  it('update binds, rebinds and unbinds (null), effective at once in the cache', async () => {
    const { auth, events } = setup({ partners })
    const { value, passcode } = await auth.passcodes.create(admin, 'acc', { name: 'P', expiry: 30 })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    expect(await auth.connect({ headers, partner: 'initech' })).toMatchObject(OK) // now cached

    const bound = await auth.passcodes.update(admin, 'acc', passcode.id, { partners: ['acme'] })
    expect(bound.partners).toEqual(['acme'])
    expect(await auth.connect({ headers, partner: 'initech' })).toMatchObject(forbidden('initech'))
    expect(await auth.connect({ headers, partner: 'acme' })).toMatchObject(OK)
    expect(events.find((event) => event.type === 'passcode.updated')).toMatchObject({ changed: ['partners'] })

    await expect(auth.passcodes.update(admin, 'acc', passcode.id, { partners: [] })).rejects.toMatchObject({ field: 'partners' })
    const unbound = await auth.passcodes.update(admin, 'acc', passcode.id, { partners: null })
    expect(unbound.partners).toBeNull()
    expect(await auth.connect({ headers, partner: 'initech' })).toMatchObject(OK)
    // A rename keeps the binding as it is.
    await auth.passcodes.update(admin, 'acc', passcode.id, { partners: ['globex'] })
    expect((await auth.passcodes.update(admin, 'acc', passcode.id, { name: 'Renamed' })).partners).toEqual(['globex'])
  })

  it('a binding change on one instance takes effect at once on another sharing the store', async () => {
    const store = memoryStore()
    const one = setup({ store, partners })
    const two = setup({ store, partners })
    const { value, passcode } = await one.auth.passcodes.create(admin, 'acc', { name: 'Shared', expiry: 30 })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    expect(await two.auth.connect({ headers, partner: 'initech' })).toMatchObject(OK)
    await one.auth.passcodes.update(admin, 'acc', passcode.id, { partners: ['acme'] })
    expect(await two.auth.connect({ headers, partner: 'initech' })).toMatchObject(forbidden('initech'))
    const principal = await two.auth.authenticate({ accountId: 'acc', passcode: value })
    expect(principal).toMatchObject({ ok: true, principal: { partners: ['acme'] } })
  })

  it('a bound partner later removed from the whitelist: the passcode then succeeds for no partner, and the view says so', async () => {
    const whitelist = mutableWhitelist(['acme', 'globex'])
    const { auth, clock } = setup({ partners: whitelist })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme only', expiry: 30, partners: ['acme'] })
    clock.advance(1)
    await auth.passcodes.create(admin, 'acc', { name: 'Unbound', expiry: 30 })
    const headers = { 'x-service-account-id': 'acc', 'x-service-passcode': value }
    whitelist.remove('acme')
    expect(await auth.connect({ headers, partner: 'acme' })).toMatchObject(forbidden('acme'))
    expect(await auth.connect({ headers, partner: 'globex' })).toMatchObject(forbidden('globex'))
    // Other routes still authenticate: only connect depends on the partner.
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    const listed = await auth.passcodes.list(admin, 'acc')
    expect(listed.map((view) => [view.name, view.partners, view.partnersNotWhitelisted])).toEqual([
      ['Acme only', ['acme'], ['acme']],
      ['Unbound', null, []],
    ])
  })
})
