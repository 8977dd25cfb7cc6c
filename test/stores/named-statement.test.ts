import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { joinInputs, namedStatement, orNull, sqlType } from '../../src/stores/postgres/named-statement'
import { auditStatements } from '../../src/stores/postgres/audit-statements'
import { EDIT_INPUTS, editInput } from '../../src/stores/postgres/statement-columns'
import { webhookStatements } from '../../src/stores/postgres/webhook-statements'
import { limitStatements } from '../../src/stores/postgres/limit-store'
import { policyStatements } from '../../src/stores/postgres/policy-statements'
import { partnerStatements } from '../../src/stores/postgres/postgres-partners'

describe('named statement inputs', () => {
  const revoke = namedStatement({ accountId: sqlType.text, userId: sqlType.text, at: sqlType.bigint, unused: orNull(sqlType.text) }, ($) =>
    [
      `UPDATE s.user_passcodes SET revoked_at = ${$.at}`,
      `WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS DISTINCT FROM ${$.at}`,
    ].join(' '),
  )

  it('numbers the inputs in the order the text first uses them, with their casts, once each', () => {
    expect(revoke.text).toBe(
      'UPDATE s.user_passcodes SET revoked_at = $1::bigint WHERE account_id = $2::text AND user_id = $3::text AND revoked_at IS DISTINCT FROM $1::bigint',
    )
  })

  it('puts a call’s named values in placeholder order, and sends no input the text does not use', () => {
    expect(revoke.values({ userId: 'u_1', at: 5, accountId: 'acc_1', unused: 'x' })).toEqual([5, 'acc_1', 'u_1'])
  })

  it('refuses a placeholder written by hand that no input made', () => {
    expect(() => namedStatement({ a: sqlType.text }, ($) => `SELECT ${$.a}, $2::text`)).toThrow(/\$2/)
  })

  it('refuses an input read while the text was made but left out of it (it would be sent untyped)', () => {
    const pieces = ($: { readonly a: string; readonly b: string }) => ({ first: `SELECT ${$.a}`, second: `SELECT ${$.b}` })
    expect(() => namedStatement({ a: sqlType.text, b: sqlType.text }, ($) => pieces($).first)).toThrow(/leaves out its input b/)
  })

  it('joins the inputs of two pieces, and refuses one name with two types', () => {
    expect(joinInputs({ a: sqlType.text }, { a: sqlType.text, b: sqlType.bigint })).toEqual({ a: sqlType.text, b: sqlType.bigint })
    expect(() => joinInputs({ a: sqlType.text }, { a: sqlType.bigint })).toThrow(/text and bigint/)
  })
})

describe('the statements of webhooks, limits, policies and partners', () => {
  const sets = { webhooks: webhookStatements('s'), limits: limitStatements('s'), policies: policyStatements('s'), partners: partnerStatements('s') }

  it.each(Object.entries(sets))('%s: every one takes named inputs, its placeholders all numbered by the builder', (_, set) => {
    for (const [name, statement] of Object.entries(set)) {
      expect(statement, name).toEqual({ text: expect.any(String), values: expect.any(Function) })
      const numbers = [...statement.text.matchAll(/\$(\d+)::/g)].map(([, n]) => Number(n))
      // Every `$n` carries its cast: none was written by hand without one.
      expect([...statement.text.matchAll(/\$\d+/g)], name).toHaveLength(numbers.length)
    }
  })

  it('binds a call’s fields by name, whatever their order: a claim passes its request as it is', () => {
    const claim = sets.webhooks.claimDeliveries
    expect(claim.values({ token: 't', limit: 10, leaseMs: 30_000, now: 5 })).toEqual([5, 10, 't', 30_000])
    expect(sets.limits.claim.values({ leaseMs: 1, now: 2, token: 'u', limit: 3 })).toEqual([2, 3, 'u', 1])
  })

  it('sends a batch as one array per column, its items null where the outcome has none', () => {
    const input = {
      ids: ['msg_1', 'msg_2'],
      tokens: ['t', 't'],
      instants: [1, 2],
      oks: [true, false],
      statuses: [200, null],
      errors: [null, 'timeout'],
      states: ['delivered', 'pending'],
      nextAttempts: [null, 60_000],
      disableAfterMs: 432_000_000,
    }
    expect(sets.webhooks.completeDeliveries.values(input)).toEqual(Object.values(input))
  })
})

describe('an account passcode’s edit, by name', () => {
  const edit = auditStatements('s').editAndLock

  it('has a value and a "given" flag for every field of the patch, each in the text', () => {
    const input = editInput('acc_1', 'pc_1', { updatedAt: 7 })
    expect(Object.keys(input).sort()).toEqual(Object.keys(EDIT_INPUTS).sort())
    for (const [name, value] of Object.entries(input)) {
      if (name.endsWith('Given')) expect(value, name).toBe(false)
    }
    // Every input is sent: the text uses each.
    expect(edit.values(input)).toHaveLength(Object.keys(EDIT_INPUTS).length)
  })

  it('stores each field as its column takes it: arrays copied, JSON as text, a forever expiry as no days', () => {
    const partners = ['acme']
    const input = editInput('acc_1', 'pc_1', {
      updatedAt: 7,
      expiry: 'forever',
      partners,
      metadata: { team: 'data' },
      rateLimit: null,
      disabledAt: null,
    })
    expect(input).toMatchObject({
      expiry: null,
      expiryGiven: true,
      partners: ['acme'],
      metadata: '{"team":"data"}',
      rateLimit: null,
      rateLimitGiven: true,
      disabledAt: null,
      disabledAtGiven: true,
      nameGiven: false,
    })
    expect(input.partners).not.toBe(partners)
  })
})

describe('the PostgreSQL store writes no placeholder by hand', () => {
  const folder = fileURLToPath(new URL('../../src/stores/postgres/', import.meta.url))
  /**
   * The migrations keep their SQL as written: the function bodies and DDL of
   * migrations.ts, and the runner's statements (migrate.ts) on a schema it may be
   * creating, before any statement of the store runs.
   */
  const MIGRATIONS = new Set(['migrations.ts', 'migrate.ts'])
  /** The code without its comments, which may name a statement's placeholders. */
  const code = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')
  /** `$1`, `$2::text`, … (not a replacement pattern such as `'$1m.'`). */
  const handWritten = (source: string): string[] => code(source).match(/\$\d+(?!\w)(::[\w[\]]+)?/g) ?? []
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ name, placeholders: handWritten(readFileSync(join(folder, name), 'utf8')) }))

  it('every module but the migrations takes named inputs (namedStatement)', () => {
    const written = files.filter(({ name, placeholders }) => placeholders.length > 0 && !MIGRATIONS.has(name))
    expect(written).toEqual([])
  })

  it('finds a placeholder where one is written, and none in a comment or a replacement pattern', () => {
    expect(files.find(({ name }) => name === 'migrate.ts')?.placeholders.length).toBeGreaterThan(0)
    expect(handWritten("x = `SELECT $1::text[]`; y = '$1m.'; // $2::text\n/* $3 */")).toEqual(['$1::text[]'])
  })
})
