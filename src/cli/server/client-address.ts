import { BlockList, isIP } from 'node:net'

/**
 * The reference server's `--trust-proxy`: which peers are proxies whose
 * `X-Forwarded-For` is believed. The library leaves this to the host's framework
 * (Express `trust proxy`, Fastify `trustProxy`, Koa `app.proxy`); `serve` has no
 * framework, so it keeps the same rule as Express's proxy-addr, on Node's `BlockList`.
 */

/** Named ranges, as Express's `trust proxy` names them. */
const NAMED: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  loopback: [
    ['127.0.0.0', 8],
    ['::1', 128],
  ],
  linklocal: [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  uniquelocal: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['fc00::', 7],
  ],
}

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4')

/**
 * Checks one `--trust-proxy` entry: `loopback`, `linklocal`, `uniquelocal`, an IP
 * address, or a CIDR range (`10.0.0.0/8`, `fd00::/8`). Returns it as given, or
 * `undefined` when it is none of these.
 *
 * @param entry - one comma-separated entry, trimmed
 * @example
 * ```ts
 * trustProxyEntry('10.0.0.0/8') // '10.0.0.0/8'
 * trustProxyEntry('10.0.0.0/33') // undefined
 * ```
 */
export function trustProxyEntry(entry: string): string | undefined {
  if (Object.hasOwn(NAMED, entry)) return entry
  const [address = '', prefix, ...rest] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return undefined
  if (prefix === undefined) return entry
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1
  return bits >= 0 && bits <= (version === 4 ? 32 : 128) ? entry : undefined
}

/**
 * The set of trusted proxies of checked `--trust-proxy` entries (see {@link trustProxyEntry}).
 * IPv4-mapped IPv6 peers (`::ffff:10.0.0.1`) match the IPv4 entries.
 *
 * @example
 * ```ts
 * const proxies = trustedProxies(['loopback', '10.0.0.0/8'])
 * ```
 */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList()
  for (const entry of entries) {
    const named = Object.hasOwn(NAMED, entry) ? NAMED[entry] : undefined
    if (named !== undefined) {
      for (const [network, bits] of named) list.addSubnet(network, bits, family(network))
      continue
    }
    const [address = '', prefix] = entry.split('/')
    if (prefix === undefined) list.addAddress(address, family(address))
    else list.addSubnet(address, Number(prefix), family(address))
  }
  return list
}

/**
 * Whether `address` is one of the trusted proxies.
 *
 * @example
 * ```ts
 * isTrusted(trustedProxies(['loopback']), '127.0.0.1') // true
 * ```
 */
export const isTrusted = (proxies: BlockList, address: string): boolean => isIP(address) !== 0 && proxies.check(address, family(address))

/**
 * The client address of a request: the socket's peer, unless that peer is a trusted
 * proxy; then `X-Forwarded-For` is read from the right (each proxy appends the address
 * it received the request from), skipping trusted proxies, and the first address that
 * is not one is the client. Addresses further left were written by the client or by a
 * proxy not trusted, and are never read. When every hop is trusted, the leftmost.
 *
 * @param peer - the socket's remote address
 * @param forwardedFor - the `X-Forwarded-For` header as Node holds it (repeated ones joined with `", "`)
 * @param proxies - from {@link trustedProxies}; `undefined` reads the socket only
 * @example
 * ```ts
 * clientAddress('127.0.0.1', '198.51.100.4, 203.0.113.7', trustedProxies(['loopback'])) // '203.0.113.7'
 * ```
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | readonly string[] | undefined,
  proxies: BlockList | undefined,
): string | undefined {
  if (proxies === undefined || peer === undefined || forwardedFor === undefined || !isTrusted(proxies, peer)) return peer
  const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',')
  let client = peer
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index]!.trim()
    if (hop === '') continue
    client = hop
    if (!isTrusted(proxies, hop)) break
  }
  return client
}
