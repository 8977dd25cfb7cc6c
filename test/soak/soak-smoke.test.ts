import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSoak, SHORT } from '../../scripts/soak/soak'
import { MIX } from '../../scripts/soak/traffic'
import { migratedTemplate } from '../helpers/cli-command'

/**
 * The soak harness itself (`npm run soak`, kept out of `npm test`), in its short mode:
 * it starts the reference server, sends every kind of request of the mix, checks every
 * answer and samples the server's heap after forced GCs. The one-minute run and its
 * memory verdict are in docs/soak.md. It seeds a copy of the CLI tests' migrated data
 * folder's database, which the run makes once, instead of making one of its own.
 */
describe('soak harness (short mode)', () => {
  it('runs the reference server under the mix: every answer expected, heap sampled after GC', async () => {
    const result = await runSoak({ ...SHORT, databaseTemplate: path.join(await migratedTemplate(), 'pgdata') })

    expect(result.serverExit).toBeUndefined()
    expect(result.traffic.examples).toEqual([])
    expect(result.traffic.unexpected).toBe(0)
    expect(result.traffic.requests).toBeGreaterThan(0)
    const kinds = new Set(Object.keys(result.traffic.answers).map((key) => key.split(' → ')[0]))
    expect([...kinds].sort()).toEqual(Object.keys(MIX).sort())

    expect(result.heap.samples.length).toBeGreaterThanOrEqual(3)
    for (const sample of result.heap.samples) expect(sample.heapUsed).toBeGreaterThan(2 ** 20)
    expect(result.heap.baseline.atMs).toBeGreaterThanOrEqual(SHORT.baselineAtMs)
    expect(Number.isFinite(result.heap.growth)).toBe(true)

    // A run shorter than the flush interval: the flush at shutdown writes each used
    // passcode once, in one statement.
    expect(result.usage).toMatchObject({ flushes: 1, maxPerPasscode: 1, limitPerPasscode: 1 })
    expect(result.usage.passcodes).toBe(result.usage.writes)
    expect(result.usage.passcodes).toBeGreaterThan(0)
  }, 90_000)
})
