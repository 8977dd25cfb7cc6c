import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fetchHost, honoHost } from '../fetch/hosts'
import { clientAddressKey } from '../../src/service/client-address'
import { admin, setup } from '../helpers/service'

/**
 * SPEC §5.37: the limiter's key of a client address. An IPv4 caller is one key however
 * it arrives; any other IPv6 caller is keyed by its /64, in any spelling; a request
 * without an address is counted under one shared key, and the service says so once.
 */

const SEED = Number(process.env.FC_SEED ?? 20_261_126)
const hex = (value: number) => value.toString(16)

/** One way to write a 16-bit group: any case, with or without leading zeros. */
const groupText = (group: number) =>
  fc
    .record({ pad: fc.integer({ min: hex(group).length, max: 4 }), upper: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }) })
    .map(({ pad, upper }) => [...hex(group).padStart(pad, '0')].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''))

/**
 * Every spelling of eight groups as an IPv6 literal: each group in any case and
 * padding, a run of zero groups (any of them, or none) written `::`, the last two
 * groups as a dotted quad when `dottedTail`, and a zone ID or brackets around it.
 */
function ipv6Spelling(groups: readonly number[], dottedTail: boolean): fc.Arbitrary<string> {
  // The groups a `::` may stand for: a run of zeros, never half of a dotted tail.
  const last = dottedTail ? 6 : 8
  const runs: [number, number][] = []
  for (let start = 0; start < last; start++) {
    for (let end = start + 1; end <= last && groups[end - 1] === 0; end++) runs.push([start, end])
  }
  const texts = fc.tuple(...groups.map(groupText))
  const run = runs.length === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...runs), { nil: undefined })
  const wrap = fc.constantFrom('plain', 'zone', 'brackets')
  return fc.tuple(texts, run, wrap).map(([parts, compressed, wrapping]) => {
    const [g6, g7] = [groups[6]!, groups[7]!]
    // One word per group, but the dotted tail is one word for the last two.
    const words = dottedTail ? [...parts.slice(0, 6), `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`] : [...parts]
    const text = compressed === undefined ? words.join(':') : `${words.slice(0, compressed[0]).join(':')}::${words.slice(compressed[1]).join(':')}`
    return wrapping === 'zone' ? `${text}%eth0` : wrapping === 'brackets' ? `[${text}]` : text
  })
}

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
const groupsOf = ([a, b, c, d]: readonly number[]) => [(a! << 8) | b!, (c! << 8) | d!]

describe('SPEC 5.37 client addresses for limits', () => {
  it('keys an IPv4 caller by its address however it arrives: dotted, IPv4-mapped or NAT64, in any spelling (property)', () => {
    const arrivals = ipv4.chain((bytes) => {
      const [g6, g7] = groupsOf(bytes)
      const mapped = [0, 0, 0, 0, 0, 0xffff, g6!, g7!]
      const nat64 = [0x64, 0xff9b, 0, 0, 0, 0, g6!, g7!]
      return fc.tuple(
        fc.constant(bytes),
        fc.oneof(
          fc.constant(bytes.join('.')),
          ipv6Spelling(mapped, false),
          ipv6Spelling(mapped, true),
          ipv6Spelling(nat64, false),
          ipv6Spelling(nat64, true),
        ),
      )
    })
    fc.assert(
      fc.property(arrivals, ([bytes, spelling]) => {
        expect(clientAddressKey(spelling)).toBe(bytes.join('.'))
      }),
      { seed: SEED, numRuns: 2_000 },
    )
  })

  it('names the spellings of the issue', () => {
    for (const spelling of [
      '127.0.0.1',
      '::ffff:127.0.0.1',
      '::FFFF:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:7F00:0001',
      '0:0:0:0:0:ffff:127.0.0.1',
      '0000:0000:0000:0000:0000:ffff:7f00:0001',
    ]) {
      expect(clientAddressKey(spelling), spelling).toBe('127.0.0.1')
    }
    expect(clientAddressKey('64:ff9b::c000:201')).toBe('192.0.2.1')
    expect(clientAddressKey('64:ff9b::192.0.2.1')).toBe('192.0.2.1')
    expect(clientAddressKey('0064:FF9B:0000:0000:0000:0000:C000:0201')).toBe('192.0.2.1')
    // Only the well-known /96 carries an IPv4 address: the rest of 64:ff9b::/32 is IPv6.
    expect(clientAddressKey('64:ff9b:1::c000:201')).toBe('64:ff9b:1:0::/64')
  })

  it('keys any other IPv6 caller by its /64, one key for every spelling and every host of the /64 (property)', () => {
    const group = fc.integer({ min: 0, max: 0xffff })
    // Zero groups are frequent, so `::` lands in many places.
    const sparse = fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: group })
    const ipv6 = fc
      .tuple(
        fc.array(sparse, { minLength: 4, maxLength: 4 }),
        fc.array(sparse, { minLength: 4, maxLength: 4 }),
        fc.array(sparse, { minLength: 4, maxLength: 4 }),
      )
      .filter(([prefix]) => !prefix.every((g) => g === 0) && !(prefix[0] === 0x64 && prefix[1] === 0xff9b))
    const cases = ipv6.chain(([prefix, host, otherHost]) =>
      fc.tuple(fc.constant(prefix), ipv6Spelling([...prefix, ...host], false), ipv6Spelling([...prefix, ...otherHost], false)),
    )
    fc.assert(
      fc.property(cases, ([prefix, one, other]) => {
        const key = `${prefix.map(hex).join(':')}::/64`
        expect(clientAddressKey(one)).toBe(key)
        expect(clientAddressKey(other)).toBe(key)
      }),
      { seed: SEED, numRuns: 2_000 },
    )
  })

  it('gives two /64s two keys, and an IPv4 address and its /64-looking neighbours apart (property)', () => {
    const prefix = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }).filter((p) => p[0] !== 0 && p[0] !== 0x64)
    fc.assert(
      fc.property(prefix, prefix, (a, b) => {
        fc.pre(a.join() !== b.join())
        expect(clientAddressKey(`${a.map(hex).join(':')}::1`)).not.toBe(clientAddressKey(`${b.map(hex).join(':')}::1`))
      }),
      { seed: SEED, numRuns: 500 },
    )
    expect(clientAddressKey('::ffff:192.0.2.1')).not.toBe(clientAddressKey('::fffe:192.0.2.1'))
  })

  it('counts requests without an address under one key, so the per-address limit still holds, and says so once', async () => {
    const { auth, events } = setup({ rateLimit: { windowMs: 60_000, maxFailuresPerAddress: 2, maxFailuresPerAccount: false } })
    const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    expect((await auth.authenticate({ accountId: 'acc', passcode: value })).ok).toBe(true)
    for (let i = 0; i < 2; i++) expect(await auth.authenticate({ accountId: 'acc', passcode: 'psc_wrong' })).toMatchObject({ statusCode: 400 })
    expect(await auth.authenticate({ accountId: 'acc', passcode: value })).toMatchObject({ statusCode: 429 })
    // Callers that give their address are counted apart.
    expect((await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.1' })).ok).toBe(true)
    expect(events.filter((event) => event.type === 'limiter.no_client_address')).toEqual([
      { type: 'limiter.no_client_address', at: expect.any(Date), message: expect.stringContaining('shares one count ("unknown")') },
    ])
  })

  it('an adapter that cannot see the address (a Fetch handler called without it, Hono without clientAddress) says so once, and is limited', async () => {
    for (const host of ['fetch', 'hono'] as const) {
      const { auth, events } = setup({ rateLimit: { windowMs: 60_000, maxFailuresPerAddress: 2, maxFailuresPerAccount: false } })
      const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
      const handle = host === 'fetch' ? fetchHost(auth) : honoHost(auth).fetch
      const send = async (passcode: string) =>
        (await handle(new Request('http://localhost/1/events.json', { headers: { 'x-service-account-id': 'acc', 'x-service-passcode': passcode } })))
          .status
      expect(await send(value)).toBe(200)
      expect(await send('psc_wrong')).toBe(400)
      expect(await send('psc_wrong')).toBe(400)
      expect(await send(value)).toBe(429)
      expect(
        events.filter((event) => event.type === 'limiter.no_client_address'),
        host,
      ).toHaveLength(1)
    }
  })
})
