import { describe, expect, it } from 'vitest'
import { InvalidOptionsError } from '../../src/index'
import { assertPasscodeAuth, checkAdapterOptions } from '../../src/http/adapter-options'
import { setup } from '../helpers/service'

describe('assertPasscodeAuth', () => {
  it('accepts what createPasscodeAuth returns', () => {
    expect(() => assertPasscodeAuth(setup().auth, 'requirePasscode')).not.toThrow()
  })

  it.each([undefined, null, {}, 'auth', { authenticate: () => undefined }])('refuses %j with a message naming the factory', (value) => {
    expect(() => assertPasscodeAuth(value, 'requirePasscode')).toThrow(InvalidOptionsError)
    expect(() => assertPasscodeAuth(value, 'requirePasscode')).toThrow(/`auth`: requirePasscode needs the object that createPasscodeAuth\(\) returns/)
  })
})

describe('checkAdapterOptions', () => {
  const checks = { mode: (value: unknown) => (value === undefined || value === 'a' ? undefined : "must be 'a'") }

  it('accepts no options, and known options with good values', () => {
    expect(() => checkAdapterOptions(undefined, 'f', checks)).not.toThrow()
    expect(() => checkAdapterOptions({ mode: 'a' }, 'f', checks)).not.toThrow()
  })

  it('refuses a non-object, an unknown key and a bad value, naming the option', () => {
    expect(() => checkAdapterOptions('a', 'f', checks)).toThrow(/`options`: f options must be an object/)
    expect(() => checkAdapterOptions([], 'f', checks)).toThrow(InvalidOptionsError)
    expect(() => checkAdapterOptions({ mdoe: 'a' }, 'f', checks)).toThrow(/`mdoe`: unknown option of f; known: mode/)
    expect(() => checkAdapterOptions({ mode: 'b' }, 'f', checks)).toThrow(/`mode`: must be 'a'/)
  })
})
