import type { EventInput } from './events'

const HEXTET = /^[0-9a-f]{1,4}$/i
const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/
// An address as a host may hand it over: an IP literal, at most a zone ID longer.
const MAX_ADDRESS_LENGTH = 64

/**
 * The limiter key shared by every request that comes without a client address (SPEC
 * §5.37): they are counted together, so the per-address limit still holds for them.
 */
export const UNKNOWN_ADDRESS_KEY = 'unknown'

/** The four bytes of a dotted-quad IPv4 literal, or `undefined` when it is not one. */
function ipv4Bytes(text: string): number[] | undefined {
  const match = DOTTED_QUAD.exec(text)
  if (match === null) return undefined
  const bytes = match.slice(1).map(Number)
  return bytes.every((byte) => byte <= 255) ? bytes : undefined
}

/** The eight 16-bit groups of an IPv6 literal (an IPv4 tail allowed), or `undefined` when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split('::')
  if (halves.length > 2) return undefined
  const parse = (part: string | undefined, last: boolean): number[] | undefined => {
    if (part === undefined || part === '') return []
    const texts = part.split(':')
    const groups: number[] = []
    for (const [index, text] of texts.entries()) {
      if (last && index === texts.length - 1 && text.includes('.')) {
        const bytes = ipv4Bytes(text)
        if (bytes === undefined) return undefined
        groups.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!)
      } else if (HEXTET.test(text)) {
        groups.push(Number.parseInt(text, 16))
      } else {
        return undefined
      }
    }
    return groups
  }
  const head = parse(halves[0], halves.length === 1)
  const tail = parse(halves[1], true)
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  return [...head, ...new Array<number>(missing).fill(0), ...tail]
}

/**
 * The IPv4 address an IPv6 one carries in its last 32 bits, as four bytes, when it is one
 * of the two ways an IPv4 caller arrives over IPv6: IPv4-mapped (`::ffff:0:0/96`, how a
 * dual-stack socket reports it) or the NAT64 well-known prefix (`64:ff9b::/96`, RFC 6052).
 */
function embeddedIpv4(groups: readonly number[]): number[] | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0
  return mapped || nat64 ? [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff] : undefined
}

/** The eight groups of an IPv6 literal as sent by a host: in brackets or not, a zone ID dropped. */
function ipv6GroupsOf(address: string): number[] | undefined {
  if (!address.includes(':') || address.length > MAX_ADDRESS_LENGTH + 2) return undefined
  const bracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const zone = bracketed.indexOf('%')
  return ipv6Groups(zone < 0 ? bracketed : bracketed.slice(0, zone))
}

/**
 * A client address as the bytes the rules of SPEC §5.37 see it: an IPv4 caller as its 4
 * bytes however it arrives (`a.b.c.d`, IPv4-mapped, NAT64 `64:ff9b::/96`), any other IPv6
 * caller as its 16 bytes; `undefined` for anything that is not an IP literal. What an
 * address allowlist (SPEC §5.49) matches against its ranges, with the same reading as
 * the limiter's keys ({@link clientAddressKey}).
 *
 * @example
 * ```ts
 * clientAddressBytes('::ffff:192.0.2.7') // Uint8Array [192, 0, 2, 7]
 * ```
 */
export function clientAddressBytes(address: string): Uint8Array | undefined {
  const ipv4 = ipv4Bytes(address)
  if (ipv4 !== undefined) return Uint8Array.from(ipv4)
  const groups = ipv6GroupsOf(address)
  if (groups === undefined) return undefined
  const embedded = embeddedIpv4(groups)
  if (embedded !== undefined) return Uint8Array.from(embedded)
  const bytes = new Uint8Array(16)
  for (const [index, group] of groups.entries()) {
    bytes[index * 2] = group >> 8
    bytes[index * 2 + 1] = group & 0xff
  }
  return bytes
}

/**
 * The limiter key of a client address (SPEC §5.37): an IPv4 caller by its IPv4 address
 * however it arrives (`a.b.c.d`, IPv4-mapped `::ffff:a.b.c.d` in any spelling, the
 * NAT64 prefix `64:ff9b::/96`), and any other IPv6 caller by its /64 prefix, because
 * one subscriber usually holds a whole /64 and could otherwise rotate through 2^64
 * addresses to dodge the per-address limit. IPv6 in any spelling (compressed or not,
 * any case, leading zeros, a zone ID, in brackets) gives one key. Anything else (a
 * host-defined identifier) is taken as it is, cut to 64 characters. `undefined` for
 * no address.
 *
 * @example
 * ```ts
 * clientAddressKey('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 * clientAddressKey('::ffff:192.0.2.7')     // '192.0.2.7'
 * clientAddressKey('64:ff9b::c000:201')    // '192.0.2.1'
 * ```
 */
export function clientAddressKey(address: unknown): string | undefined {
  if (typeof address !== 'string' || address === '') return undefined
  const ipv4 = ipv4Bytes(address)
  if (ipv4 !== undefined) return ipv4.join('.')
  const groups = ipv6GroupsOf(address)
  if (groups !== undefined)
    return (
      embeddedIpv4(groups)?.join('.') ??
      `${groups
        .slice(0, 4)
        .map((group) => group.toString(16))
        .join(':')}::/64`
    )
  return address.length <= MAX_ADDRESS_LENGTH ? address : address.slice(0, MAX_ADDRESS_LENGTH)
}

/**
 * The limiter store's key for a client address, namespaced apart from accounts: the
 * one of {@link clientAddressKey}, or {@link UNKNOWN_ADDRESS_KEY} for a request without
 * one, so the per-address limit is never silently off (SPEC §5.37). The first such
 * request is reported once through `emit` as `limiter.no_client_address`.
 *
 * @example
 * ```ts
 * const keyOf = addressStoreKeys(context.emit)
 * keyOf('::ffff:192.0.2.7') // 'address:192.0.2.7'
 * keyOf(undefined)          // 'address:unknown', and one event
 * ```
 */
export function addressStoreKeys(emit: ((event: EventInput) => void) | undefined): (address: unknown) => string {
  let reported = false
  return (address) => {
    const key = clientAddressKey(address)
    if (key !== undefined) return `address:${key}`
    if (!reported) {
      reported = true
      emit?.({
        type: 'limiter.no_client_address',
        message:
          'A request reached the per-address limiter without a client address: every such request shares one count ("unknown"), so failures from one of them can hold back the others. Pass the caller\'s address (clientAddress, or the adapter\'s clientAddress option; behind a proxy, its trusted forwarded address).',
      })
    }
    return `address:${UNKNOWN_ADDRESS_KEY}`
  }
}
