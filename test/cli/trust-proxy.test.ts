import { afterEach, describe, expect, it } from 'vitest'
import { serverConfig } from '../../src/cli/config'
import { parseCommandLine } from '../../src/cli/run-cli'
import type { Runtime } from '../../src/cli/runtime'
import { buildServer, type ReferenceServer } from '../../src/cli/server/app'
import { clientAddress, trustedProxies, trustProxyEntry } from '../../src/cli/server/client-address'
import { createPasscodeAuth } from '../../src/index'
import { memoryStore } from '../../src/memory'

/**
 * `serve --trust-proxy`: the client address the limiter counts comes from
 * X-Forwarded-For only when the socket's peer is a trusted proxy, read from the right.
 */

describe('clientAddress', () => {
  const loopback = trustedProxies(['loopback'])
  const fleet = trustedProxies(['10.0.0.0/8', 'fd00::/8', '192.0.2.1'])

  it('is the socket address without --trust-proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', undefined)).toBe('127.0.0.1')
    expect(clientAddress('198.51.100.2', undefined, undefined)).toBe('198.51.100.2')
  })

  it('is the socket address when the peer is not a trusted proxy, or sent no X-Forwarded-For', () => {
    expect(clientAddress('198.51.100.2', '203.0.113.7', loopback)).toBe('198.51.100.2')
    expect(clientAddress('127.0.0.1', undefined, loopback)).toBe('127.0.0.1')
    expect(clientAddress(undefined, '203.0.113.7', loopback)).toBeUndefined()
  })

  it('takes the rightmost address that is not a trusted proxy, so a forged left part is never read', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', loopback)).toBe('203.0.113.7')
    expect(clientAddress('127.0.0.1', '1.1.1.1, 203.0.113.7', loopback)).toBe('203.0.113.7')
    expect(clientAddress('10.0.0.5', '1.1.1.1, 203.0.113.7, 10.1.2.3, 192.0.2.1', fleet)).toBe('203.0.113.7')
    // Several headers reach Node joined with ", ", in order.
    expect(clientAddress('10.0.0.5', ['1.1.1.1', '203.0.113.7'], fleet)).toBe('203.0.113.7')
  })

  it('matches IPv4-mapped peers against IPv4 ranges, and IPv6 ranges', () => {
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.7', loopback)).toBe('203.0.113.7')
    expect(clientAddress('::1', '2001:db8::9', loopback)).toBe('2001:db8::9')
    expect(clientAddress('fd12::1', '2001:db8::9, fd00::2', fleet)).toBe('2001:db8::9')
  })

  it('takes the leftmost when every hop is trusted, and an entry that is not an address as the client (as Express does)', () => {
    expect(clientAddress('10.0.0.5', '10.0.0.9, 10.0.0.8', fleet)).toBe('10.0.0.9')
    expect(clientAddress('10.0.0.5', 'unknown, 10.0.0.8', fleet)).toBe('unknown')
    expect(clientAddress('10.0.0.5', ' , ', fleet)).toBe('10.0.0.5')
  })
})

describe('serve --trust-proxy and PASSCODE_AUTH_TRUST_PROXY', () => {
  const io = (env: Record<string, string> = {}) => ({ stdout: () => undefined, stderr: () => undefined, env, cwd: '/' })
  const trustOf = (argv: string[], env: Record<string, string> = {}) => serverConfig(io(env), parseCommandLine(['serve', ...argv]).flags).trustProxy

  it('is off by default, and takes comma-separated addresses, ranges and names', () => {
    expect(trustOf([])).toEqual([])
    expect(trustOf(['--trust-proxy', 'loopback, 10.0.0.0/8,fd00::/8 ,192.0.2.1'])).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.1'])
    expect(trustOf([], { PASSCODE_AUTH_TRUST_PROXY: 'uniquelocal' })).toEqual(['uniquelocal'])
    expect(trustOf(['--trust-proxy', 'linklocal'], { PASSCODE_AUTH_TRUST_PROXY: 'uniquelocal' })).toEqual(['linklocal'])
  })

  it.each([
    ['10.0.0.0/33'],
    ['::/129'],
    ['10.0.0.0/8/8'],
    ['proxy.internal'],
    ['*'],
    ['true'],
    ['10.0.0.0/'],
    ['loopback,,'],
    ['constructor'],
    ['toString'],
    ['__proto__'],
  ])('refuses %s', (value) => {
    expect(() => trustOf(['--trust-proxy', value])).toThrow(
      'Invalid setting --trust-proxy: must be IP addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal, separated by commas',
    )
  })

  it('checks one entry at a time', () => {
    expect(trustProxyEntry('2001:db8::/32')).toBe('2001:db8::/32')
    expect(trustProxyEntry('10.0.0.0/x')).toBeUndefined()
  })
})

describe('the reference server behind a trusted proxy', () => {
  let app: ReferenceServer | undefined
  afterEach(async () => {
    await app?.close()
    app = undefined
  })

  /** Four failed attempts from "addresses" a and b, then one more from a and one from b. */
  async function failures(trustProxy: readonly string[] | undefined) {
    const auth = createPasscodeAuth({
      store: memoryStore(),
      partners: ['acme'],
      rateLimit: { maxFailuresPerAddress: 2, maxFailuresPerAccount: false, windowMs: 60_000 },
    })
    app = buildServer({ auth, ping: async () => undefined } as unknown as Runtime, trustProxy === undefined ? {} : { trustProxy })
    const base = `http://127.0.0.1:${(await app.listen('127.0.0.1', 0)).port}`
    const attempt = async (forwardedFor: string) =>
      (
        await fetch(`${base}/v1/connect?partner=acme`, {
          headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': 'psc_wrong', 'x-forwarded-for': forwardedFor },
        })
      ).status
    const statuses: number[] = []
    for (const forwardedFor of ['203.0.113.7', '203.0.113.7', '198.51.100.4, 203.0.113.7', '203.0.113.8']) statuses.push(await attempt(forwardedFor))
    return statuses
  }

  it('counts each forwarded client on its own with --trust-proxy loopback, and a forged left part does not dodge the limit', async () => {
    expect(await failures(['loopback'])).toEqual([400, 400, 429, 400])
  })

  it('counts everyone behind the proxy as one address without it', async () => {
    expect(await failures(undefined)).toEqual([400, 400, 429, 429])
  })
})
