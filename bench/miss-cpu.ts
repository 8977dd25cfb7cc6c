/**
 * The client's own CPU per cache miss through a transaction pooler, without the
 * network, the driver or the server: `auth.authenticate()` (cache off) and the store's
 * lookup alone, on the PostgreSQL store over a stand-in `pg` pool whose connections
 * answer each statement on the next turn of the event loop (`setImmediate`) with the
 * row the schema's lookup function returns, and refuse named statements as PgBouncer
 * 1.18 in transaction mode does (so the store calls the function unnamed, as there).
 * Next to them, one statement on the stand-in itself: what the stand-in costs. What
 * is left is this package's work per miss (row decoding, the rules, the single-flight
 * read, the deadline, usage counting, promise hops), which the noise of a shared
 * machine does not reach. 16 in flight; medians of CPU µs per call over rounds in
 * which every scenario takes its turn.
 *
 *   npx tsx bench/miss-cpu.ts [rounds]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/miss-cpu.ts && npx tsx bench/profile-summary.ts /tmp/prof/*.cpuprofile
 */
import { createPasscodeAuth } from '../src/index'
import { createPasscodeHasher } from '../src/core/hashing'
import { memoryStore } from '../src/memory'
import { postgresStore } from '../src/stores/postgres/index'
import { ADMIN } from './fixtures'
import { median } from './stats'

const PASSCODES = 100
const CALLS = 40_000

// Credentials made by the service, so that they are well formed; the stand-in answers
// with the rows a migrated schema's function would return for them.
const seeding = memoryStore()
const seeder = createPasscodeAuth({ store: seeding, cache: false })
const credentials: { accountId: string; passcode: string }[] = []
const rows = new Map<string, string>()
for (let i = 0; i < PASSCODES; i++) {
  const accountId = `acc_${i % 10}`
  const { value, passcode: view } = await seeder.passcodes.create(ADMIN, accountId, { name: `Partner ${i}`, expiry: 365 })
  credentials.push({ accountId, passcode: value })
  const passcode = (await seeding.getAccountPasscode(accountId, view.id))!
  // The function's row as PostgreSQL's row_to_json writes it: every column, in order.
  rows.set(
    passcode.hash,
    JSON.stringify({
      kind: 'account',
      account_id: accountId,
      id: passcode.id,
      user_id: null,
      name: passcode.name,
      name_key: passcode.nameKey,
      hash: passcode.hash,
      hint: passcode.hint,
      expiry_days: 365,
      created_at: passcode.createdAt,
      updated_at: passcode.updatedAt,
      expires_at: passcode.expiresAt,
      partners: null,
      previous_hash: null,
      previous_hash_ends_at: null,
      last_used_at: null,
      last_used_partner: null,
      ciphertext: null,
      validity_type: null,
      validity_days: null,
      granted_at: null,
      revoked_at: null,
      pepper_id: passcode.pepperId ?? null,
      disabled_at: null,
      description: '',
      accepted_passcodes: 'account',
    }),
  )
}
await seeder.close()
const hash = createPasscodeHasher()
const hashes = credentials.map(({ passcode }) => hash(passcode))

/** A connection that answers on the next turn of the event loop; named statements are refused as PgBouncer 1.18 refuses them. */
const connection = {
  query(config: unknown, values?: unknown[]): Promise<{ rows: unknown[] }> {
    if (typeof config !== 'string') return Promise.reject(Object.assign(new Error('prepared statement does not exist'), { code: '26000' }))
    const [key] = values ?? []
    // The function's call answers one row; its array form (concurrent misses sharing a statement) one per key, with its position.
    const answer = Array.isArray(key)
      ? key.map((one: unknown, i) => ({ n: String(i + 1), json: rows.get(String(one)) ?? null }))
      : [{ json: rows.get(String(key)) ?? null }]
    return new Promise((resolve) => setImmediate(() => resolve({ rows: config.includes('find_credential_by_hash') ? answer : [] })))
  },
  release: () => undefined,
  on: () => undefined,
}
const pool = { totalCount: 10, connect: () => Promise.resolve(connection), query: connection.query }
const store = postgresStore(pool, { schema: 'bench', listen: false })
const auth = createPasscodeAuth({ store, cache: false })

// Step 1 of a pepper change over the same stand-in: every other credential's row is
// found under the current pepper's hash, the others' under the next pepper's (written
// by instances a step ahead), so each miss looks two hashes up and finds half under each.
const [CURRENT_PEPPER, NEXT_PEPPER] = ['bench-current-pepper-0123456789abcd', 'bench-next-pepper-0123456789abcdef']
const [currentHash, nextHash] = [createPasscodeHasher(CURRENT_PEPPER), createPasscodeHasher(NEXT_PEPPER)]
credentials.forEach(({ passcode }, i) => {
  const peppered = (i % 2 === 0 ? currentHash : nextHash)(passcode)
  rows.set(peppered, JSON.stringify({ ...(JSON.parse(rows.get(hash(passcode))!) as object), hash: peppered }))
})
const twoPeppers = createPasscodeAuth({ store, cache: false, pepper: { current: CURRENT_PEPPER, next: [NEXT_PEPPER] } })

const scenarios: Record<string, (i: number) => Promise<boolean>> = {
  'a statement on the stand-in pool': async (i) => (await pool.query('SELECT 1', [hashes[i % PASSCODES]])).rows.length === 0,
  'store lookup alone': async (i) => (await store.findCredentialByHash(hashes[i % PASSCODES]!)) !== null,
  'authenticate(), cache off': async (i) => (await auth.authenticate(credentials[i % PASSCODES]!)).ok,
  'authenticate(), two peppers': async (i) => (await twoPeppers.authenticate(credentials[i % PASSCODES]!)).ok,
}

/** CPU µs per call of `call`, 16 in flight, `calls` calls. */
async function cpuPerCall(call: (i: number) => Promise<boolean>, calls: number): Promise<number> {
  const before = process.cpuUsage()
  let started = 0
  const worker = async () => {
    while (started < calls) if (!(await call(started++))) throw new Error('a stored credential was not found')
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / started
}

const rounds = Number(process.argv[2] ?? 7)
for (const call of Object.values(scenarios)) await cpuPerCall(call, CALLS / 2)
const results = new Map<string, number[]>()
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(scenarios)
  for (const name of round % 2 === 0 ? names : names.reverse())
    results.set(name, [...(results.get(name) ?? []), await cpuPerCall(scenarios[name]!, CALLS)])
}
console.log(`CPU µs per call, 16 in flight, medians of ${rounds} rounds of ${CALLS.toLocaleString('en')} calls (per round in brackets)`)
for (const [name, values] of results)
  console.log(`${name.padEnd(34)} ${median(values).toFixed(2).padStart(6)}  (${values.map((v) => v.toFixed(2)).join(' ')})`)
await auth.close()
await twoPeppers.close()
