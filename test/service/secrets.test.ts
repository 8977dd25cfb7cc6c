import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { generatePasscode, PasscodeAuthError, type PasscodeStore } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryStore } from '../../src/memory'
import { admin, setup } from '../helpers/service'

const user = { userId: 'u1', role: 'member' } as const

/** Every way a value could be rendered by accident. */
function renderings(thing: unknown): string[] {
  const out = [inspect(thing, { depth: 10 }), String(thing)]
  try {
    out.push(JSON.stringify(thing) ?? '')
  } catch {
    // circular structures cannot be stringified; inspect covers them
  }
  if (thing instanceof Error) out.push(thing.message, thing.stack ?? '', inspect(thing.cause, { depth: 10 }))
  return out
}

describe('SPEC 5.19 secrets never leak', () => {
  it('keeps passcode values out of every returned object, event, error and the store', async () => {
    const pepper = 'pepper-for-tests-only-0123456789'
    const returned: unknown[] = []
    const errors: unknown[] = []
    const dump: unknown[] = []
    const base = memoryStore()
    // Record everything the store is given and returns.
    const store = new Proxy(base, {
      get(target, key) {
        const original = target[key as keyof PasscodeStore]
        if (typeof original !== 'function') return original
        return async (...args: unknown[]) => {
          dump.push(args)
          const result = await (original as (...a: unknown[]) => unknown).apply(target, args)
          dump.push(result)
          return result
        }
      },
    })
    const { auth, events, clock } = setup({ store, pepper })
    const record = <T>(value: T): T => {
      returned.push(value)
      return value
    }
    const capture = async (operation: Promise<unknown>) => {
      try {
        record(await operation)
      } catch (error) {
        errors.push(error)
      }
    }

    const created = record(await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 10 }))
    const values = [created.value]
    record(await auth.authenticate({ accountId: 'acc', passcode: created.value }))
    record(await auth.connect({ headers: { 'x-service-account-id': 'acc', 'x-service-passcode': created.value }, partner: 'Nope' }))
    await capture(auth.passcodes.create(admin, 'acc', { name: 'acme', expiry: 10 }))
    await capture(auth.passcodes.create(admin, 'acc', { name: created.value, expiry: 0 }))
    record(await auth.passcodes.update(admin, 'acc', created.passcode.id, { expiry: 20 }))
    record(await auth.passcodes.list(admin, 'acc'))
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    record(await auth.userPasscodes.grant(admin, 'acc', 'u1', { validity: { type: 'infinite' } }))
    const revealed = record(await auth.userPasscodes.reveal(user, 'acc'))
    values.push(revealed.value)
    record(await auth.authenticate({ accountId: 'acc', passcode: revealed.value }))
    record(await auth.userPasscodes.reset(admin, 'acc', 'u1'))
    values.push((await auth.userPasscodes.reveal(user, 'acc')).value)
    record(await auth.authenticate({ accountId: 'other', passcode: values[2]! }))
    record(await auth.userPasscodes.revoke(admin, 'acc', 'u1'))
    clock.advance(30 * DAY_MS)
    record(await auth.authenticate({ accountId: 'acc', passcode: created.value }))
    await capture(auth.userPasscodes.reveal(user, 'acc'))
    await auth.passcodes.delete(admin, 'acc', created.passcode.id)
    record(auth)

    expect(events.length).toBeGreaterThan(10)
    expect(errors.length).toBe(3)
    expect(errors.every((error) => error instanceof PasscodeAuthError)).toBe(true)
    const secrets = [...values, pepper]
    for (const thing of [...returned, ...events, ...errors]) {
      for (const text of renderings(thing)) {
        for (const secret of secrets) expect(text).not.toContain(secret)
      }
    }
    // The store saw the account passcode only as a hash and hint; user values only as JWE.
    const stored = inspect(dump, { depth: 20 })
    for (const secret of secrets) expect(stored).not.toContain(secret)
    expect(stored).not.toContain(pepper)
  })

  it('does not echo option values that may be secrets in option errors', async () => {
    const { InvalidOptionsError, createPasscodeAuth } = await import('../../src/index')
    const pepper = 'short'
    const error = (() => {
      try {
        createPasscodeAuth({ store: memoryStore(), pepper })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(InvalidOptionsError)
    expect((error as Error).message).toContain('pepper')
    expect((error as Error).message).not.toContain(`"${pepper}"`)
  })

  it('keeps the issued value reachable only on purpose', async () => {
    const { auth } = setup()
    const issued = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 1 })
    const { value } = issued
    expect(value).toMatch(/^psc_/)
    expect(Object.keys(issued)).toEqual(['passcode'])
    expect({ ...issued }).not.toHaveProperty('value')
    expect(String(issued)).toBe('[IssuedPasscode]')
    expect(generatePasscode()).not.toBe(value)
  })
})
