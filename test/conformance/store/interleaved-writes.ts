import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import { createPasscodeHasher, pepperId } from '../../../src/core/hashing'
import type { PasscodeStore } from '../../../src/ports/passcode-store'
import { createPasscodeAuth, type PasscodeAuth } from '../../../src/service/create-passcode-auth'
import type { PasscodeAuthOptions } from '../../../src/service/options'
import type { StoreFixture } from './fixtures'
import { writeAfterReads } from './interleave'

const admin: Actor = { userId: 'u_admin', role: 'admin' }

/** What a verification answers: `ok`, or the refusal's reason. */
type Answer = 'ok' | 'disabled'

/** The passcode a write acts on, and what acts. */
interface Target {
  readonly id: string
  readonly value: string
  /** A service on another instance, one step ahead in the pepper change (it verifies under both peppers). */
  readonly other: PasscodeAuth
  /** The re-hash a step-2 instance's verification of the value writes (old pepper → new), on another instance. */
  readonly rehash: () => Promise<unknown>
}

/** A write by another instance while a verification runs, and what the verification answers before and after it. */
interface Write {
  readonly name: string
  /** Brings the new passcode to the state the write starts from. */
  readonly prepare?: (target: Target) => Promise<unknown>
  readonly write: (target: Target) => Promise<unknown>
  readonly before: Answer
  readonly after: Answer
  /** Whether it moves the hash to another pepper's (a one-pepper instance cannot follow that). */
  readonly rehashes: boolean
}

const rotation = (target: Target) => target.other.passcodes.rotate(admin, 'acc_1', target.id, { overlapMinutes: 60 })
const leak = (target: Target) => target.other.leaks.report([target.value], { source: 'conformance' })
const enable = (target: Target) => target.other.passcodes.enable(admin, 'acc_1', target.id)
const disable = (target: Target) => target.other.passcodes.disable(admin, 'acc_1', target.id)

const WRITES: readonly Write[] = [
  { name: 'a rotation with an overlap (the hash becomes the previous one)', write: rotation, before: 'ok', after: 'ok', rehashes: false },
  { name: 'a leak report (disables it)', write: leak, before: 'ok', after: 'disabled', rehashes: false },
  { name: 'an enable', prepare: disable, write: enable, before: 'disabled', after: 'ok', rehashes: false },
  {
    name: 'a re-hash to the new pepper, then a rotation with an overlap',
    write: async (target) => (await target.rehash(), rotation(target)),
    before: 'ok',
    after: 'ok',
    rehashes: true,
  },
  {
    name: 'a re-hash to the new pepper, then a leak report',
    write: async (target) => (await target.rehash(), leak(target)),
    before: 'ok',
    after: 'disabled',
    rehashes: true,
  },
  {
    name: 'a re-hash to the new pepper, then an enable',
    prepare: disable,
    write: async (target) => (await target.rehash(), enable(target)),
    before: 'disabled',
    after: 'ok',
    rehashes: true,
  },
]

/**
 * The writers that move a verified credential's hash or change its state, each placed at
 * every point among a verification's reads on another instance (`writeAfterReads`), on
 * one pepper and on either step of a pepper change (SPEC §5.26, §5.34, §5.38, §5.42,
 * §5.47): the verification answers as before the write or as after it, never anything
 * else (an unknown value), and as after it when the write came before its first read.
 */
export function interleavedWriteCases(fixture: () => StoreFixture): void {
  describe('a verification with a write among its reads', () => {
    for (const write of WRITES) {
      it(`answers as before or after ${write.name}, never as an unknown value`, async () => {
        const { store, peer } = fixture()
        const otherStore: PasscodeStore = await peer()
        const [old, fresh] = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]
        const creator = createPasscodeAuth({ store, pepper: old, encryptionKeys: [{ id: 'k1', key: randomBytes(32) }] })
        const other = createPasscodeAuth({ store: otherStore, pepper: { current: fresh, previous: [old] }, cache: false })
        // Alone, a write moves no hash to another pepper's: one pepper, and the step that reads two.
        const verifiers: readonly (readonly [string, NonNullable<PasscodeAuthOptions['pepper']>])[] = write.rehashes
          ? [
              ['step 1', { current: old, next: [fresh] }],
              ['step 2', { current: fresh, previous: [old] }],
            ]
          : [
              ['one pepper', old],
              ['step 2', { current: fresh, previous: [old] }],
            ]
        const wrong: string[] = []
        let passcodes = 0
        for (const [step, pepper] of verifiers) {
          for (let after = 0; ; after++) {
            const { passcode, value } = await creator.passcodes.create(admin, 'acc_1', { name: `Passcode ${passcodes++}`, expiry: 90 })
            const fromTo = { fromHash: createPasscodeHasher(old)(value), toHash: createPasscodeHasher(fresh)(value) }
            const rehash = () =>
              otherStore.rehashCredential!({ kind: 'account', accountId: 'acc_1', id: passcode.id, pepperId: pepperId(fresh), ...fromTo })
            const target: Target = { id: passcode.id, value, other, rehash }
            await write.prepare?.(target)
            const view = writeAfterReads(store, after, () => write.write(target))
            const verifier = createPasscodeAuth({ store: view.store, pepper, cache: false })
            const outcome = await verifier.authenticate({ accountId: 'acc_1', passcode: value })
            await verifier.close()
            const answer = outcome.ok ? 'ok' : outcome.reason
            // Before the first read: the state after the write; after the last: the state before it.
            const expected = after === 0 ? [write.after] : after < view.reads ? [write.before, write.after] : [write.before]
            if (!expected.includes(answer as Answer)) wrong.push(`${step}, written after ${after} of ${view.reads} reads: ${answer}`)
            if (!view.wrote || after >= view.reads) break
          }
        }
        await Promise.all([creator.close(), other.close()])
        expect(wrong).toEqual([])
      })
    }

    it('SPEC 5.42 a leak report acts on the value even when a re-hash moves it between its read and its act', async () => {
      const { store, peer } = fixture()
      const otherStore = await peer()
      const [old, fresh] = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]
      const creator = createPasscodeAuth({ store, pepper: old })
      const after = createPasscodeAuth({ store, pepper: { current: fresh, previous: [old] }, cache: false })
      const missed: string[] = []
      for (const [step, pepper] of [
        ['step 1', { current: old, next: [fresh] }],
        ['step 2', { current: fresh, previous: [old] }],
      ] as const) {
        for (let at = 0; ; at++) {
          const { passcode, value } = await creator.passcodes.create(admin, 'acc_1', { name: `${step} ${at}`, expiry: 90 })
          const fromTo = { fromHash: createPasscodeHasher(old)(value), toHash: createPasscodeHasher(fresh)(value) }
          const rehash = () =>
            otherStore.rehashCredential!({ kind: 'account', accountId: 'acc_1', id: passcode.id, pepperId: pepperId(fresh), ...fromTo })
          const view = writeAfterReads(store, at, rehash)
          const reporter = createPasscodeAuth({ store: view.store, pepper, cache: false })
          const [verdict] = await reporter.leaks.report([value], { source: 'conformance' })
          await reporter.close()
          const outcome = await after.authenticate({ accountId: 'acc_1', passcode: value })
          const answer = `${verdict!.label}, then ${outcome.ok ? 'ok' : outcome.reason}`
          if (answer !== 'true_positive, then disabled') missed.push(`${step}, re-hashed after ${at} of ${view.reads} reads: ${answer}`)
          if (!view.wrote || at >= view.reads) break
        }
      }
      await Promise.all([creator.close(), after.close()])
      expect(missed).toEqual([])
    })
  })
}
