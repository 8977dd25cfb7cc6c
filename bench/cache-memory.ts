/**
 * Child process (section 3b), run with `--expose-gc`: the heap the verification cache
 * holds at 100 000 entries, in bytes per entry. Entries are realistic: real passcode
 * values as flat strings (as Node's HTTP parser hands header values over) and
 * principals built as the service builds them from what the store returns, with
 * fresh strings for every field. The count includes the keys, the principals, the
 * cache's own records and the Map's table.
 *
 *   node --expose-gc --import tsx bench/cache-memory.ts
 */
import { randomUUID } from 'node:crypto'
import { generatePasscode, type Principal } from '../src/index'
import { VerificationCache } from '../src/service/verify/verification-cache'
import { runAsChild } from './child'

/** What the child reports. */
export interface CacheMemoryResult {
  readonly entries: number
  readonly bytesPerEntry: number
  readonly heapDeltaBytes: number
  /** Entries after inserting 10 % more than `maxEntries`: the cache is bounded. */
  readonly sizeAfterOverflow: number
}

const ENTRIES = Number(process.env.CACHE_ENTRIES ?? 100_000)

function settledHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('run with node --expose-gc')
  for (let i = 0; i < 4; i++) gc()
  return process.memoryUsage().heapUsed
}

/**
 * A value as the HTTP parser produces it: a flat one-byte string of its own.
 * `generatePasscode()` builds its result by concatenation, which a header never is.
 */
const asHeaderValue = (value: string): string => Buffer.from(value, 'latin1').toString('latin1')

function principalAt(i: number): Principal {
  // A row from the store gives each field as a flat string of its own (randomUUID's
  // own result is a slice of a larger string, which would overstate the cost).
  return {
    accountId: asHeaderValue(`acc_${1_000_000 + Math.floor(i / 100)}`),
    kind: 'account',
    passcodeId: asHeaderValue(randomUUID()),
    passcodeName: asHeaderValue(`Partner ${i}`),
  }
}

async function main(): Promise<CacheMemoryResult> {
  const now = Date.now()
  const expiresAt = now + 365 * 86_400_000
  const cache = new VerificationCache({ ttlMs: 86_400_000, maxEntries: ENTRIES })
  const before = settledHeap()
  for (let i = 0; i < ENTRIES; i++) {
    cache.set(asHeaderValue(generatePasscode()), principalAt(i), expiresAt, now, cache.generation)
  }
  const after = settledHeap()
  if (cache.size !== ENTRIES) throw new Error(`expected ${ENTRIES} entries, found ${cache.size}`)
  const heapDeltaBytes = after - before
  for (let i = 0; i < ENTRIES / 10; i++) cache.set(asHeaderValue(generatePasscode()), principalAt(i), expiresAt, now, cache.generation)
  return { entries: ENTRIES, heapDeltaBytes, bytesPerEntry: heapDeltaBytes / ENTRIES, sizeAfterOverflow: cache.size }
}

runAsChild(main)
