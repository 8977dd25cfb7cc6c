import { describe, expect, it } from 'vitest'
import * as cli from '../../src/cli/setting-rules'
import { MIN_PEPPER_BYTES } from '../../src/core/hashing'
import { corsPolicy } from '../../src/http/cors'
import { hasRepeatedPepper, MAX_PEPPERS, pepperValueSchema } from '../../src/service/verify/options'
import { MAX_FAILURES_RANGE, RATE_LIMIT_DEFAULTS, WINDOW_MS_RANGE } from '../../src/service/limiter/options'
import { ENCRYPTION_KEY_BYTES, keyIdSchema } from '../../src/service/user-passcodes/options'
import { MIN_AUDIT_KEY_BYTES } from '../../src/service/audit/options'

/**
 * src/cli/setting-rules.ts states the service's rules again, so that the command can
 * name the setting that breaks one before it opens anything (it uses the package only
 * through its entry points). Here they are held to the service's own.
 */
describe('the command’s copy of the service’s rules (src/cli/setting-rules.ts)', () => {
  it('has the service’s numbers', () => {
    expect(cli.MIN_PEPPER_BYTES).toBe(MIN_PEPPER_BYTES)
    expect(cli.MAX_PEPPERS).toBe(MAX_PEPPERS)
    expect(cli.ENCRYPTION_KEY_BYTES).toBe(ENCRYPTION_KEY_BYTES)
    expect(cli.MIN_AUDIT_KEY_BYTES).toBe(MIN_AUDIT_KEY_BYTES)
    expect(cli.MAX_FAILURES_RANGE).toEqual(MAX_FAILURES_RANGE)
    expect(cli.WINDOW_MS_RANGE).toEqual(WINDOW_MS_RANGE)
    expect(cli.RATE_LIMIT_DEFAULTS).toEqual(RATE_LIMIT_DEFAULTS)
  })

  it('takes the peppers, key IDs and origins the service takes, and refuses the others', () => {
    const peppers = ['', 'a'.repeat(15), 'a'.repeat(16), 'é'.repeat(8), 'é'.repeat(7) + 'a', 'x'.repeat(40)]
    for (const pepper of peppers) expect(Buffer.byteLength(pepper) >= cli.MIN_PEPPER_BYTES, pepper).toBe(pepperValueSchema.safeParse(pepper).success)
    const lists: (string | null)[][] = [[], ['a'], ['a', 'a'], ['a', 'b'], [null, null], [null, 'a'], ['a', null, 'a']]
    for (const list of lists) expect(cli.hasRepeatedPepper(list), JSON.stringify(list)).toBe(hasRepeatedPepper(list))
    const ids = ['', 'k1', 'k 1', 'a'.repeat(64), 'a'.repeat(65), 'ключ', '2026-01!']
    for (const id of ids) expect(cli.KEY_ID.test(id), id).toBe(keyIdSchema.safeParse(id).success)
    const origins = [
      'https://a.example',
      'https://a.example/',
      'http://localhost:8080',
      'https://A.example',
      'null',
      'file:///x',
      'https://a.example/x',
      'not a url',
      'https://a.example:443',
    ]
    for (const origin of origins) {
      const service = (() => {
        try {
          corsPolicy({ origins: [origin] })
          return true
        } catch {
          return false
        }
      })()
      expect(cli.isOrigin(origin), origin).toBe(service)
    }
  })

  it('refuses an origin with the service’s words', () => {
    expect(() => corsPolicy({ origins: ['https://a.example/'] })).toThrow(cli.ORIGIN_FORM)
  })
})
