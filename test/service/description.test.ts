import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/index'
import { checkPasscodeDescription, MAX_DESCRIPTION_LENGTH } from '../../src/core/rules'
import { admin, member, setup } from '../helpers/service'

describe('SPEC 5.39 passcode description', () => {
  it('is set at create, returned in the view and the list, and empty when not given', async () => {
    const { auth, clock } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, description: 'Nightly export\nOwner: data team' })
    clock.advance(1)
    const plain = await auth.passcodes.create(admin, 'acc', { name: 'Plain', expiry: 90 })
    expect(passcode.description).toBe('Nightly export\nOwner: data team')
    expect(plain.passcode.description).toBe('')
    expect((await auth.passcodes.list(member, 'acc')).map((view) => view.description)).toEqual(['Nightly export\nOwner: data team', ''])
  })

  it('is changed by an update, cleared by "" or null, and the event names the field', async () => {
    const { auth, events } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90, description: 'first' })
    expect((await auth.passcodes.update(admin, 'acc', passcode.id, { description: 'second' })).description).toBe('second')
    expect(events.at(-1)).toMatchObject({ type: 'passcode.updated', changed: ['description'] })
    expect(JSON.stringify(events)).not.toContain('second')
    expect((await auth.passcodes.update(admin, 'acc', passcode.id, { description: null })).description).toBe('')
    await auth.passcodes.update(admin, 'acc', passcode.id, { description: 'third' })
    expect((await auth.passcodes.update(admin, 'acc', passcode.id, { description: '' })).description).toBe('')
    // Other fields are untouched by a description edit.
    expect((await auth.passcodes.list(admin, 'acc'))[0]).toMatchObject({ name: 'Acme', expiry: 90, expiresAt: passcode.expiresAt })
  })

  it('is stored in NFC, trimmed, with \\r\\n and lone \\r as \\n', async () => {
    const { auth } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', {
      name: 'Acme',
      expiry: 90,
      description: '  Cafe\u0301\r\nline two\rline three\n ',
    })
    expect(passcode.description).toBe('Café\nline two\nline three')
  })

  it('takes up to 500 characters, counted as code points after normalising', async () => {
    const { auth } = setup()
    const emoji = '😀'.repeat(MAX_DESCRIPTION_LENGTH)
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Emoji', expiry: 90, description: emoji })
    expect(passcode.description).toBe(emoji)
    // 501 decomposed characters that compose to 500.
    const composed = await auth.passcodes.create(admin, 'acc', { name: 'Composed', expiry: 90, description: 'e'.repeat(499) + 'e\u0301' })
    expect([...composed.passcode.description]).toHaveLength(500)
    await expect(auth.passcodes.create(admin, 'acc', { name: 'Long', expiry: 90, description: 'x'.repeat(501) })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'description',
      message: expect.stringContaining('at most 500 characters'),
    })
  })

  it('refuses control characters other than the newline, unpaired surrogates and non-text, naming the field and why', async () => {
    const { auth } = setup()
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Acme', expiry: 90 })
    for (const description of ['tab\there', 'nul\u0000', 'bell\u0007', 'del\u007f', 'c1\u0085', 'half \ud800 pair']) {
      const error = await auth.passcodes.create(admin, 'acc', { name: 'Bad', expiry: 90, description }).catch((caught: unknown) => caught)
      expect(error, JSON.stringify(description)).toBeInstanceOf(InvalidInputError)
      expect(error).toMatchObject({ field: 'description', message: expect.stringContaining('control characters') })
      await expect(auth.passcodes.update(admin, 'acc', passcode.id, { description })).rejects.toMatchObject({ field: 'description' })
    }
    for (const description of [42, ['a'], { text: 'a' }]) {
      await expect(auth.passcodes.update(admin, 'acc', passcode.id, { description } as never)).rejects.toMatchObject({ field: 'description' })
    }
    expect((await auth.passcodes.list(admin, 'acc'))[0]?.description).toBe('')
  })

  it('any text is refused with a reason, or stored normalised: NFC, trimmed, \\n only, at most 500 characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (text) => {
        const checked = checkPasscodeDescription(text)
        if (!checked.ok) {
          expect(checked.reason).toMatch(/^must /)
          return
        }
        const stored = checked.description
        expect(stored).toBe(stored.normalize('NFC').trim())
        expect([...stored].length).toBeLessThanOrEqual(MAX_DESCRIPTION_LENGTH)
        expect(stored).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
        expect(checkPasscodeDescription(stored)).toEqual({ ok: true, description: stored })
      }),
    )
  })
})
