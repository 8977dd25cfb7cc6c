import { describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, type AuthOutcome, type PasscodeAuth, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { nodeRequestReader, type NodeRequestLike } from '../../src/http/node/node-request'
import { admin, manualClock } from '../helpers/service'

const calls = vi.hoisted(() => ({ hash: 0 }))

// Counts every passcode hash the service computes.
vi.mock('../../src/core/hashing', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/core/hashing')>()
  return {
    ...original,
    createPasscodeHasher: (pepper?: string | Uint8Array) => {
      const hash = original.createPasscodeHasher(pepper)
      return (value: string) => {
        calls.hash++
        return hash(value)
      }
    },
  }
})

const reader = nodeRequestReader(
  (request: NodeRequestLike) => request,
  () => undefined,
)

/** What requirePasscode gets for a Node request, as an outcome whether or not it came synchronously. */
async function authenticateNodeRequest(auth: PasscodeAuth, request: NodeRequestLike): Promise<AuthOutcome> {
  const answer = auth.verifyRequest(request, reader)
  return answer instanceof Promise ? answer : { ok: true, principal: answer }
}

describe('the warm-cache path of requirePasscode (auth.verifyRequest)', () => {
  it('does no hashing and no storage read once the credentials are cached', async () => {
    const store = memoryStore()
    let storeReads = 0
    const counting: PasscodeStore = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'findCredentialByHash') {
          return (hash: string) => {
            storeReads++
            return target.findCredentialByHash(hash)
          }
        }
        return Reflect.get(target, property, receiver)
      },
    })
    const auth = createPasscodeAuth({ store: counting, clock: manualClock() })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    const request = { headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value } }

    const first = await authenticateNodeRequest(auth, request)
    expect(first.ok).toBe(true)
    const hashesAfterFirst = calls.hash
    const readsAfterFirst = storeReads
    expect(readsAfterFirst).toBe(1)
    expect(hashesAfterFirst).toBeGreaterThan(0) // the counter does see the cold path

    for (let i = 0; i < 100; i++) {
      const outcome = await authenticateNodeRequest(auth, request)
      expect(outcome.ok && outcome.principal.accountId).toBe('acc_1')
    }
    expect(calls.hash).toBe(hashesAfterFirst)
    expect(storeReads).toBe(readsAfterFirst)
  })

  it('still refuses a cached passcode sent with another account ID, without hashing it again', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), clock: manualClock() })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
    await authenticateNodeRequest(auth, { headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value } })
    const outcome = await authenticateNodeRequest(auth, { headers: { 'x-service-account-id': 'acc_2', 'x-service-passcode': value } })
    expect(outcome).toMatchObject({ ok: false, statusCode: 400, reason: 'wrong_account' })
  })
})
