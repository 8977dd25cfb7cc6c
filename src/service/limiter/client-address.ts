const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i
const HEXTET = /^[0-9a-f]{1,4}$/i
// An address as a host may hand it over: an IP literal, at most a zone ID longer.
const MAX_ADDRESS_LENGTH = 64

/** The eight 16-bit groups of an IPv6 literal, or `undefined` when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split('::')
  if (halves.length > 2) return undefined
  const parse = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return []
    const groups: number[] = []
    for (const text of part.split(':')) {
      if (!HEXTET.test(text)) return undefined // also refuses an embedded IPv4 tail: rare, kept whole below
      groups.push(Number.parseInt(text, 16))
    }
    return groups
  }
  const head = parse(halves[0])
  const tail = parse(halves[1])
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  return [...head, ...new Array<number>(missing).fill(0), ...tail]
}

/**
 * The limiter key of a client address: an IPv4 address as it is (also when Node
 * reports it IPv4-mapped, `::ffff:a.b.c.d`), and an IPv6 address by its /64 prefix,
 * because one subscriber usually holds a whole /64 and could otherwise rotate through
 * 2^64 addresses to dodge the per-address limit. Anything else (a host-defined
 * identifier) is taken as it is, cut to 64 characters. `undefined` for no address.
 *
 * @example
 * ```ts
 * clientAddressKey('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 * clientAddressKey('::ffff:192.0.2.7')     // '192.0.2.7'
 * ```
 */
export function clientAddressKey(address: unknown): string | undefined {
  if (typeof address !== 'string' || address === '') return undefined
  const mapped = IPV4_MAPPED.exec(address)
  if (mapped !== null) return mapped[1]
  if (address.includes(':')) {
    const zone = address.indexOf('%')
    const groups = ipv6Groups(zone < 0 ? address : address.slice(0, zone))
    if (groups !== undefined) return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`
  }
  return address.length <= MAX_ADDRESS_LENGTH ? address : address.slice(0, MAX_ADDRESS_LENGTH)
}
