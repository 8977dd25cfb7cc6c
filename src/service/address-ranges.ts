import ipaddr from 'ipaddr.js'
import { clientAddressBytes } from './client-address'

/*
 * Address allowlists (SPEC §5.49): the CIDR ranges a passcode carries, read with
 * ipaddr.js (the input side: forms, host bits, the canonical text stored), and the
 * matcher a verification asks, over the client address as SPEC §5.37 reads it (an IPv4
 * caller by its IPv4 address however it arrives, `client-address.ts`, shared with the
 * limiter).
 */

/**
 * Reads one range of an allowlist: `a.b.c.d/n` (n 0 to 32), an IPv6 range `x:…/n` (n 0
 * to 128), or one address (`/32` or `/128`). Returns its canonical text (IPv4 dotted
 * decimal, IPv6 as RFC 5952 writes it), or why it is refused: not a range, host bits set
 * (`10.1.2.3/8`), or an IPv6 range of IPv4-mapped or NAT64 addresses (write its IPv4
 * range: such callers are matched by their IPv4 address).
 *
 * @example
 * ```ts
 * parseAddressRange('2001:DB8::/32') // { ok: true, range: '2001:db8::/32' }
 * parseAddressRange('10.1.2.3/8') // { ok: false, reason: 'has host bits set (the range is 10.0.0.0/8)' }
 * ```
 */
export function parseAddressRange(text: string): { ok: true; range: string } | { ok: false; reason: string } {
  const trimmed = text.trim()
  const slash = trimmed.indexOf('/')
  const address = slash < 0 ? trimmed : trimmed.slice(0, slash)
  const bitsText = slash < 0 ? undefined : trimmed.slice(slash + 1)
  const NOT_A_RANGE = 'is not a CIDR range such as 203.0.113.0/24 or 2001:db8::/32'
  // Four decimal parts only: ipaddr.js also reads the old forms (127.1, 0x7f.0.0.1), which nobody means in an allowlist.
  const isIpv4 = ipaddr.IPv4.isValidFourPartDecimal(address)
  if (!isIpv4 && !(ipaddr.IPv6.isValid(address) && !address.includes('%'))) return { ok: false, reason: NOT_A_RANGE }
  const parsed = ipaddr.parse(address)
  const maxBits = isIpv4 ? 32 : 128
  const bits = bitsText === undefined ? maxBits : /^(0|[1-9][0-9]{0,2})$/.test(bitsText) ? Number(bitsText) : Number.NaN
  if (!(bits >= 0 && bits <= maxBits)) return { ok: false, reason: `${NOT_A_RANGE} (a prefix length is 0 to ${maxBits})` }
  if (parsed instanceof ipaddr.IPv6 && bits >= 96) {
    const range = parsed.range()
    if (range === 'ipv4Mapped' || range === 'rfc6052') {
      return { ok: false, reason: 'holds IPv4 callers: write their IPv4 range (an IPv4-mapped or NAT64 caller matches its IPv4 range)' }
    }
  }
  const canonical = `${parsed.toString()}/${bits}`
  const network = `${networkOf(parsed, bits).toString()}/${bits}`
  if (network !== canonical) return { ok: false, reason: `has host bits set (the range is ${network})` }
  return { ok: true, range: canonical }
}

function networkOf(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): ipaddr.IPv4 | ipaddr.IPv6 {
  return address instanceof ipaddr.IPv4
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`)
}

/**
 * Whether a client address may use a passcode with these ranges: asked by every
 * verification of such a passcode, so it remembers its last answer (a client's requests
 * come in runs) and reads an IPv4 address without any library (client-address.ts).
 */
export interface AddressMatcher {
  /** Whether `address` is in one of the ranges; `false` without an address (fail closed). */
  allows(address: string | undefined): boolean
}

/**
 * Compiles stored ranges (canonical text, as {@link parseAddressRange} returns them)
 * into a matcher. A stored text that no longer reads as a range matches nothing.
 *
 * @example
 * ```ts
 * compileAddressRanges(['203.0.113.0/24']).allows('::ffff:203.0.113.9') // true
 * ```
 */
export function compileAddressRanges(ranges: readonly string[]): AddressMatcher {
  const v4Networks: number[] = []
  const v4Masks: number[] = []
  const v6: { readonly bytes: Uint8Array; readonly bits: number }[] = []
  for (const text of ranges) {
    const slash = text.indexOf('/')
    const address = text.slice(0, slash)
    const bits = Number(text.slice(slash + 1))
    const bytes = ipaddr.isValid(address) ? Uint8Array.from(ipaddr.parse(address).toByteArray()) : undefined
    if (bytes?.length === 4) {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
      v4Networks.push((ipv4Number(bytes) & mask) >>> 0)
      v4Masks.push(mask)
    } else if (bytes?.length === 16) {
      v6.push({ bytes, bits })
    }
  }
  let lastAddress: string | undefined
  let lastAnswer = false
  const match = (address: string): boolean => {
    const bytes = clientAddressBytes(address)
    if (bytes === undefined) return false
    if (bytes.length === 4) {
      const value = ipv4Number(bytes)
      for (let index = 0; index < v4Networks.length; index++) if ((value & v4Masks[index]!) >>> 0 === v4Networks[index]) return true
      return false
    }
    return v6.some((range) => inPrefix(bytes, range.bytes, range.bits))
  }
  return {
    allows(address) {
      if (address === undefined) return false
      if (address === lastAddress) return lastAnswer
      lastAnswer = match(address)
      lastAddress = address
      return lastAnswer
    },
  }
}

const ipv4Number = (bytes: Uint8Array): number => ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0

function inPrefix(address: Uint8Array, network: Uint8Array, bits: number): boolean {
  const whole = bits >> 3
  for (let index = 0; index < whole; index++) if (address[index] !== network[index]) return false
  const rest = bits & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (address[whole]! & mask) === network[whole]
}
