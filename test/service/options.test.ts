import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type TS from 'typescript'
import { describe, expect, it } from 'vitest'
import { ts } from '../helpers/typescript'
import { createPasscodeAuth, InvalidOptionsError, type PasscodeAuthOptions } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { resolveOptions } from '../../src/service/options'

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
    const run = () => createPasscodeAuth({ store: memoryStore(), ...override })
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

describe('option defaults', () => {
  const store = memoryStore()
  const defaults = resolveOptions({ store }) as unknown as Record<string, unknown>

  it('fills a partly given object option with the defaults of the rest', () => {
    expect(resolveOptions({ store, cache: { ttlMs: 5 } }).cache).toEqual({
      ttlMs: 5,
      maxEntries: 10_000,
      refusals: { ttlMs: 10_000, maxEntries: 10_000 },
    })
    expect(resolveOptions({ store, cache: { refusals: { ttlMs: 7 } } }).cache).toEqual({
      ttlMs: 30_000,
      maxEntries: 10_000,
      refusals: { ttlMs: 7, maxEntries: 10_000 },
    })
    expect(resolveOptions({ store, cache: { refusals: false } }).cache).toEqual({ ttlMs: 30_000, maxEntries: 10_000, refusals: false })
    expect(resolveOptions({ store, notifier: { batchSize: 3 } }).notifier).toEqual({ leaseMs: 300_000, batchSize: 3, sendTimeoutMs: 30_000 })
    expect(resolveOptions({ store, limits: { expiringSoonDays: 3 } }).limits).toEqual({ maxAccountPasscodes: 100, expiringSoonDays: 3 })
    expect(resolveOptions({ store, usage: {} }).usage).toEqual({ flushIntervalMs: 60_000, retentionDays: 90 })
  })

  it('checks a left-out object option like a given one', () => {
    // The notifier's own rule still holds when only part of it is given.
    expect(() => resolveOptions({ store, notifier: { leaseMs: 1_000 } })).toThrow('leaseMs must be greater than sendTimeoutMs')
  })

  it('resolves to what each @default tag of PasscodeAuthOptions says', () => {
    const checked = documentedDefaults().filter(({ path, value }) => {
      if (value === undefined) return false
      expect({ path: path.join('.'), value: valueAt(defaults, path) }).toEqual({ path: path.join('.'), value })
      return true
    })
    // Every numeric, boolean, string, array and object default of the interface is compared.
    expect(checked.map(({ path }) => path.join('.')).sort()).toEqual(
      [
        'allowReactivation',
        'cache',
        'cache.maxEntries',
        'cache.refusals.maxEntries',
        'cache.refusals.ttlMs',
        'cache.ttlMs',
        'leaks',
        'leaks.action',
        'limits',
        'limits.expiringSoonDays',
        'limits.maxAccountPasscodes',
        'notifier',
        'notifier.batchSize',
        'notifier.leaseMs',
        'notifier.sendTimeoutMs',
        'partners',
        'passcodeLimits',
        'passcodeLimits.idleReturnMs',
        'passcodeLimits.leaseTargetMs',
        'policy',
        'prefix',
        'rateLimit',
        'scopes',
        'sunsetHeader',
        'timeoutMs',
        'usage',
        'usage.flushIntervalMs',
        'usage.retentionDays',
        'webhooks',
        'webhooks.allowPrivateAddresses',
        'webhooks.batchSize',
        'webhooks.concurrency',
        'webhooks.leaseMs',
      ].sort(),
    )
  })
})

/** Reads value at `path`, or `undefined` once a step is not an object. */
function valueAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined), value)
}

/**
 * Every `@default` tag of the documented interface, with its option path and its value
 * when the tag starts with a literal (`30000`, `'psc'`, `{ ttlMs: 30000 }`, `false (off)`);
 * `undefined` for prose such as `none: SHA-256`.
 */
function documentedDefaults(): { path: string[]; value: unknown }[] {
  const file = fileURLToPath(new URL('../../src/service/options.ts', import.meta.url))
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: { path: string[]; value: unknown }[] = []
  const visit = (members: TS.NodeArray<TS.TypeElement>, prefix: string[]): void => {
    for (const member of members) {
      if (!ts.isPropertySignature(member) || member.name === undefined) continue
      const path = [...prefix, member.name.getText(source)]
      for (const tag of ts.getJSDocTags(member)) {
        if (tag.tagName.text !== 'default') continue
        found.push({ path, value: literal(ts.getTextOfJSDocComment(tag.comment) ?? '') })
      }
      const literals = member.type === undefined ? [] : ts.isUnionTypeNode(member.type) ? member.type.types : [member.type]
      for (const type of literals) if (ts.isTypeLiteralNode(type)) visit(type.members, path)
    }
  }
  ts.forEachChild(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'PasscodeAuthOptions') visit(node.members, [])
  })
  return found
}

/** The value of the literal a tag starts with, or `undefined`. */
function literal(text: string): unknown {
  const head = /^(\{.*\}|\[.*?\]|'[^']*'|-?\d+|true|false)(?:\s|$)/.exec(text.trim())?.[1]
  // A literal from the TSDoc's own @default tag in this repository, never outside input.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return head === undefined ? undefined : (new Function(`return (${head})`) as () => unknown)()
}
