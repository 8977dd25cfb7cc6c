import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import { DuplicateNameError, InvalidInputError } from '../../../src/core/errors'
import { createPasscodeAuth } from '../../../src/service/create-passcode-auth'
import type { StoreFixture } from './fixtures'

const admin: Actor = { userId: 'u_admin', role: 'admin' }

// Zero-width, bidi controls, BOM, variation selector, Hangul filler, line separator, lone surrogates, C0/C1.
const INVISIBLE = ['\u200B', '\u200D', '\u202E', '\u2066', '\uFEFF', '\u00AD', '\uFE0F', '\u3164', '\u2028', '\uD800', '\uDC00', '\u0000', '\u0085']

// Pieces that make the hard cases likely: composed and decomposed letters, case pairs
// whose lower case differs in length, astral characters, and every refused character.
const piece = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'A', 'é', 'e\u0301', 'É', 'E\u0301', 'ß', 'ẞ', 'İ', 'ﬁ', 'Ω', 'Ω', '😀', ' ', '-'), weight: 12 },
  { arbitrary: fc.constantFrom(...INVISIBLE), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 3 }), weight: 1 },
)
const candidateName = fc.array(piece, { minLength: 1, maxLength: 12 }).map((pieces) => pieces.join(''))

/** SPEC §5.24 through the service, so that every store is held to the same answers. */
export function unicodeNameCases(fixture: () => StoreFixture): void {
  describe('SPEC 5.24 Unicode-safe names', () => {
    it('stores names in NFC and refuses a second name that differs only in normalisation or case', async () => {
      const auth = createPasscodeAuth({ store: fixture().store })
      const { passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'Cafe\u0301', expiry: 30 })
      expect(passcode.name).toBe('Caf\u00e9')
      for (const name of ['Caf\u00e9', 'CAFE\u0301', ' caf\u00c9 ']) {
        await expect(auth.passcodes.create(admin, 'acc_1', { name, expiry: 30 })).rejects.toBeInstanceOf(DuplicateNameError)
      }
      const { passcode: other } = await auth.passcodes.create(admin, 'acc_1', { name: 'Other', expiry: 30 })
      await expect(auth.passcodes.update(admin, 'acc_1', other.id, { name: 'CAF\u00c9' })).rejects.toBeInstanceOf(DuplicateNameError)
      expect((await auth.passcodes.list(admin, 'acc_1')).map((view) => view.name).sort()).toEqual(['Caf\u00e9', 'Other'])
      await auth.close()
    })

    it.each(INVISIBLE.map((character) => [`U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, character]))(
      'refuses a name with %s, naming the field',
      async (_, character) => {
        const auth = createPasscodeAuth({ store: fixture().store })
        const refused = auth.passcodes.create(admin, 'acc_1', { name: `Acme${character}x`, expiry: 30 })
        await expect(refused).rejects.toBeInstanceOf(InvalidInputError)
        await expect(refused).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'name' })
        await expect(refused).rejects.toThrow(/^Invalid name: must not contain control or invisible characters/)
        const { passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 30 })
        await expect(auth.passcodes.update(admin, 'acc_1', passcode.id, { name: `Ac${character}me` })).rejects.toMatchObject({ field: 'name' })
        expect((await auth.passcodes.list(admin, 'acc_1')).map((view) => view.name)).toEqual(['Acme'])
        await auth.close()
      },
    )

    it('any name is refused as input, or stored as its trimmed NFC form and unique by its lower-cased NFC form (property)', async () => {
      const auth = createPasscodeAuth({ store: fixture().store })
      let account = 0
      let accepted = 0
      await fc.assert(
        fc.asyncProperty(candidateName, async (name) => {
          const accountId = `acc_p${++account}`
          let created
          try {
            created = await auth.passcodes.create(admin, accountId, { name, expiry: 30 })
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidInputError)
            expect(error).toMatchObject({ field: 'name' })
            return
          }
          accepted++
          const stored = name.normalize('NFC').trim()
          expect(created.passcode.name).toBe(stored)
          expect((await auth.passcodes.list(admin, accountId)).map((view) => view.name)).toEqual([stored])
          // Decomposed and padded, it is the same name.
          await expect(auth.passcodes.create(admin, accountId, { name: ` ${name.normalize('NFD')}\t`, expiry: 30 })).rejects.toBeInstanceOf(
            DuplicateNameError,
          )
          // Lower-cased, it is the same name too, unless lower-casing made it too long (İ → i + U+0307).
          await expect(auth.passcodes.create(admin, accountId, { name: name.toLowerCase(), expiry: 30 })).rejects.toSatisfy(
            (error) => error instanceof DuplicateNameError || (error instanceof InvalidInputError && error.message.includes('at most 64')),
          )
        }),
        { numRuns: 60, seed: 524 },
      )
      // The generator reaches both sides of the rule.
      expect(accepted).toBeGreaterThan(10)
      expect(accepted).toBeLessThan(55)
      await auth.close()
    })
  })
}
