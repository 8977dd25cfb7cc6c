import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, generatePasscode, type CredentialsInput, type PasscodeAuth } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { admin, manualClock } from '../helpers/service'

/**
 * Enumeration by timing (issue 9, docs/security.md "Enumeration and timing"): does
 * `authenticate` take longer for an account that exists than for one that does not?
 *
 * Method: many samples of the two classes, interleaved pair by pair in a random order
 * (so drift, GC pauses and JIT tiers hit both alike), each timed with
 * `process.hrtime.bigint()` around one `await authenticate(...)`. Medians are
 * compared, not means: a GC pause or a scheduler hiccup moves a mean a lot and a
 * median hardly at all. The verdict: |median difference| < max(2 µs, 10 % of the
 * faster median). The Vargha–Delaney A (probability that a sample of one class is
 * slower than one of the other; 0.5 = no difference) is reported beside it.
 *
 * What a leak looks like: an implementation that reads the account first and returns
 * early when it is unknown skips the hash, the store read and the deadline timer, a
 * difference of several microseconds on a path of ~10 µs. The second test builds
 * exactly that (a wrapper with an early return) and checks that the same verdict
 * flags it, so the first test's pass means something.
 */

const PAIRS = Number(process.env.TIMING_PAIRS ?? 20_000)
const WARM_UP = 2_000

interface Comparison {
  readonly medianA: number
  readonly medianB: number
  /** Vargha–Delaney A: P(B > A) + P(B = A) / 2. */
  readonly effect: number
  readonly leaks: boolean
}

const median = (sorted: Float64Array) => (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2

/** P(b > a) + ½ P(b = a) over all pairs, from one merge of the sorted samples. */
function varghaDelaney(a: Float64Array, b: Float64Array): number {
  let i = 0
  let below = 0 // pairs (a, b) with a < b, counted as b walks up
  let total = 0
  for (const value of b) {
    while (i < a.length && a[i]! < value) i++
    let ties = i
    while (ties < a.length && a[ties] === value) ties++
    below += i + (ties - i) / 2
    total += a.length
  }
  return below / total
}

/** Times `authenticate` on two inputs, interleaved, and applies the verdict. */
async function compare(
  authenticate: (input: CredentialsInput) => Promise<unknown>,
  a: () => CredentialsInput,
  b: () => CredentialsInput,
  pairs: number,
): Promise<Comparison> {
  const timesA = new Float64Array(pairs)
  const timesB = new Float64Array(pairs)
  const time = async (input: CredentialsInput) => {
    const start = process.hrtime.bigint()
    await authenticate(input)
    return Number(process.hrtime.bigint() - start)
  }
  for (let i = 0; i < WARM_UP; i++) {
    await time(a())
    await time(b())
  }
  // A fixed xorshift sequence decides each pair's order: reproducible, and unrelated to the code under test.
  let state = 0x9e3779b9
  for (let i = 0; i < pairs; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    if (state & 1) {
      timesA[i] = await time(a())
      timesB[i] = await time(b())
    } else {
      timesB[i] = await time(b())
      timesA[i] = await time(a())
    }
  }
  timesA.sort()
  timesB.sort()
  const medianA = median(timesA)
  const medianB = median(timesB)
  const tolerance = Math.max(2_000, 0.1 * Math.min(medianA, medianB))
  return { medianA, medianB, effect: varghaDelaney(timesA, timesB), leaks: Math.abs(medianA - medianB) >= tolerance }
}

// The refusal cache is off: the 1 000 wrong values repeat, and every call must take the
// full path (hash, store read) for the comparison to mean something. With it on, a
// repeated value costs one Map lookup whatever the account (test below).
async function service(refusals = false): Promise<{ auth: PasscodeAuth; known: string }> {
  const auth = createPasscodeAuth({
    store: memoryStore(),
    clock: manualClock(),
    pepper: 'a-test-pepper-of-32-bytes-000000',
    cache: refusals ? {} : { refusals: false },
  })
  for (let i = 0; i < 200; i++) await auth.passcodes.create(admin, `acc_${i}`, { name: 'Partner', expiry: 90 })
  return { auth, known: 'acc_107' }
}

const report = (label: string, result: Comparison) =>
  console.log(
    `${label}: median unknown account ${(result.medianA / 1000).toFixed(2)} µs, known account + wrong passcode ${(result.medianB / 1000).toFixed(2)} µs, ` +
      `difference ${((result.medianB - result.medianA) / 1000).toFixed(2)} µs, Vargha–Delaney A ${result.effect.toFixed(3)}`,
  )

describe('timing: an unknown account and a known account with a wrong passcode cost the same', () => {
  it(`shows no difference beyond noise over ${PAIRS} interleaved pairs`, async () => {
    const { auth, known } = await service()
    // Fresh, well-formed (checksum-valid) wrong passcodes: each reaches the hash and the store.
    const wrong = Array.from({ length: 1_000 }, () => generatePasscode())
    let n = 0
    // Same length as the known ID: the header checks loop over the characters.
    const unknownAccount = (): CredentialsInput => ({ accountId: `acx_${100 + (n % 100)}`, passcode: wrong[n++ % wrong.length]! })
    const knownAccount = (): CredentialsInput => ({ accountId: known, passcode: wrong[n++ % wrong.length]! })
    expect(await auth.authenticate(unknownAccount())).toMatchObject({ ok: false, statusCode: 400 })
    expect(await auth.authenticate(knownAccount())).toMatchObject({ ok: false, statusCode: 400 })

    const result = await compare(auth.authenticate, unknownAccount, knownAccount, PAIRS)
    report('authenticate', result)
    expect(result.leaks).toBe(false)
  }, 120_000)

  it('shows no difference either when the refusal cache answers repeated values (5 000 pairs)', async () => {
    const { auth, known } = await service(true)
    const wrong = Array.from({ length: 1_000 }, () => generatePasscode())
    let n = 0
    const unknownAccount = (): CredentialsInput => ({ accountId: `acx_${100 + (n % 100)}`, passcode: wrong[n++ % wrong.length]! })
    const knownAccount = (): CredentialsInput => ({ accountId: known, passcode: wrong[n++ % wrong.length]! })
    const result = await compare(auth.authenticate, unknownAccount, knownAccount, Math.min(PAIRS, 5_000))
    report('authenticate, refusal cache on', result)
    expect(result.leaks).toBe(false)
  }, 120_000)

  it('would flag an implementation that returns early for an unknown account (the method has power)', async () => {
    const { auth, known } = await service()
    const refused = await auth.authenticate({ accountId: known, passcode: 'psc_x' })
    // The leak under test: look the account up first and skip all the work when unknown.
    const leaky = (input: CredentialsInput) => (input.accountId === known ? auth.authenticate(input) : Promise.resolve(refused))
    const wrong = Array.from({ length: 1_000 }, () => generatePasscode())
    let n = 0
    const result = await compare(
      leaky,
      () => ({ accountId: 'acc_unknown', passcode: wrong[n++ % wrong.length]! }),
      () => ({ accountId: known, passcode: wrong[n++ % wrong.length]! }),
      Math.min(PAIRS, 5_000),
    )
    report('deliberately leaky wrapper (5 000 pairs)', result)
    expect(result.leaks).toBe(true)
  }, 120_000)
})
