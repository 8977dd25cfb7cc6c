import type { BlockList } from 'node:net'

/**
 * Which addresses a webhook may not reach (SPEC §5.53): every one that is not public
 * unicast. IPv4 ranges hold for their IPv4-mapped IPv6 forms as well (`::ffff:a.b.c.d`
 * in any spelling: Node's `BlockList` applies IPv4 rules to them), and for the forms a
 * NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`) gateway would carry to them.
 */
const IPV4: readonly (readonly [network: string, prefix: number, category: string])[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local or metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]

const IPV6: readonly (readonly [network: string, prefix: number, category: string])[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  // fd00:ec2::254, the cloud metadata service over IPv6, is in here.
  ['fc00::', 7, 'unique-local or metadata'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['64:ff9b:1::', 48, 'reserved'],
]

/** Where public IPv6 unicast lives, and the two prefixes that carry an IPv4 address (then judged by its IPv4 range). */
const IPV6_REACHABLE: readonly (readonly [network: string, prefix: number])[] = [
  ['2000::', 3],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
]

/** `a.b.c.d` as the two 16-bit groups of an IPv6 address that carries it. */
function groupsOf(ipv4: string): string {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number]
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
}

/** The refused categories, each a block list, and the reachable IPv6 prefixes. */
export interface AddressRules {
  readonly categories: readonly (readonly [category: string, list: BlockList])[]
  readonly reachableV6: BlockList
}

/** Builds the rules with `node:net`'s `BlockList` (given, so this file loads no built-in itself). */
export function addressRules(BlockListClass: typeof BlockList): AddressRules {
  const lists = new Map<string, BlockList>()
  const listOf = (category: string): BlockList => {
    let list = lists.get(category)
    if (list === undefined) {
      list = new BlockListClass()
      lists.set(category, list)
    }
    return list
  }
  for (const [network, prefix, category] of IPV4) {
    const list = listOf(category)
    list.addSubnet(network, prefix, 'ipv4')
    list.addSubnet(`64:ff9b::${groupsOf(network)}`, 96 + prefix, 'ipv6')
    list.addSubnet(`2002:${groupsOf(network)}::`, 16 + prefix, 'ipv6')
  }
  for (const [network, prefix, category] of IPV6) listOf(category).addSubnet(network, prefix, 'ipv6')
  const reachableV6 = new BlockListClass()
  for (const [network, prefix] of IPV6_REACHABLE) reachableV6.addSubnet(network, prefix, 'ipv6')
  return { categories: [...lists], reachableV6 }
}

/**
 * Why a webhook may not connect to `address` (its category: `loopback`, `private`, …),
 * or `undefined` when it may. `family` is 4 or 6, as `net.isIP` answers.
 *
 * @example
 * ```ts
 * refusedCategory(rules, '169.254.169.254', 4) // 'link-local or metadata'
 * refusedCategory(rules, '::ffff:127.0.0.1', 6) // 'loopback'
 * ```
 */
export function refusedCategory(rules: AddressRules, address: string, family: 4 | 6): string | undefined {
  const type = family === 4 ? 'ipv4' : 'ipv6'
  for (const [category, list] of rules.categories) if (list.check(address, type)) return category
  if (family === 6 && !rules.reachableV6.check(address, 'ipv6')) return 'reserved'
  return undefined
}
