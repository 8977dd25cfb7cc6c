import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, InvalidOptionsError, type PasscodeAuthOptions } from '../../src/index'
import { memoryStore } from '../../src/memory'

describe('createPasscodeAuth options', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['store', { store: undefined }, 'store'],
    ['store', { store: {} }, 'store'],
    ['timeoutMs', { timeoutMs: 0 }, 'timeoutMs'],
    ['cache.ttlMs', { cache: { ttlMs: -1 } }, 'cache.ttlMs'],
    ['cache.maxEntries', { cache: { maxEntries: 1.5 } }, 'cache.maxEntries'],
    ['limits.maxAccountPasscodes', { limits: { maxAccountPasscodes: 101 } }, 'limits.maxAccountPasscodes'],
    ['prefix', { prefix: 'Bad_Prefix' }, 'prefix'],
    ['pepper', { pepper: 'too-short' }, 'pepper'],
    ['encryptionKeys', { encryptionKeys: [] }, 'encryptionKeys'],
    ['partners', { partners: 'acme' }, 'partners'],
    ['onEvent', { onEvent: 'log' }, 'onEvent'],
    ['unknown', { typo: true }, 'options'],
  ])('names the bad option %s', (_, override, path) => {
    const run = () => createPasscodeAuth({ store: memoryStore(), ...override } as PasscodeAuthOptions)
    expect(run).toThrow(InvalidOptionsError)
    try {
      run()
    } catch (error) {
      expect((error as InvalidOptionsError).option).toBe(path)
      expect((error as Error).message).toContain(path === 'options' ? 'typo' : path)
    }
  })

  it.each<[unknown, string, string]>([
    ['acme', 'partners', "must be an array of partner names, like ['acme'], or a PartnerRegistry (an object with isWhitelisted(name))"],
    [{}, 'partners', "must be an array of partner names, like ['acme'], or a PartnerRegistry (an object with isWhitelisted(name))"],
    [[1], 'partners.0', 'must be a partner name (a string)'],
  ])('says what partners expects when given %j', (partners, option, expected) => {
    const error = (() => {
      try {
        createPasscodeAuth({ store: memoryStore(), partners } as PasscodeAuthOptions)
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(InvalidOptionsError)
    expect((error as InvalidOptionsError).option).toBe(option)
    expect((error as Error).message).toBe(`Invalid passcode-auth option \`${option}\`: ${expected}`)
  })

  it('accepts the documented defaults', () => {
    expect(() => createPasscodeAuth({ store: memoryStore() })).not.toThrow()
    expect(() => createPasscodeAuth({ store: memoryStore(), cache: false, partners: [' Acme '] })).not.toThrow()
  })
})
