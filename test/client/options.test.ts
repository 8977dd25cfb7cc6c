import { describe, expect, it } from 'vitest'
import { createConnectClient, InvalidClientOptionsError, type ConnectClientOptions } from '../../src/client'
import { connectUrl } from '../../src/client/options'

const credentials = { accountId: 'acc_1', passcode: 'psc_legacy-value' }

function optionError(options: unknown): InvalidClientOptionsError {
  try {
    createConnectClient(options as ConnectClientOptions)
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidClientOptionsError)
    return error as InvalidClientOptionsError
  }
  throw new Error('expected createConnectClient to throw')
}

describe('createConnectClient options', () => {
  it('picks the base URL from the host’s regions map', () => {
    const regions = { eu: 'https://eu.api.example.test', us: 'https://us.api.example.test/base' }
    expect(createConnectClient({ ...credentials, region: 'us', regions }).baseUrl).toBe(regions.us)
    expect(createConnectClient({ ...credentials, region: 'eu', regions }).baseUrl).toBe(regions.eu)
  })

  it('names an unknown region and lists the known ones', () => {
    const error = optionError({ ...credentials, region: 'mars', regions: { eu: 'https://eu.example.test' } })
    expect(error.option).toBe('region')
    expect(error.message).toBe('Invalid connect client option `region`: unknown region "mars" (known: eu)')
  })

  it('does not take inherited keys for regions', () => {
    expect(optionError({ ...credentials, region: 'toString', regions: {} }).option).toBe('region')
  })

  it.each<[string, unknown, string]>([
    ['no location', { ...credentials }, 'baseUrl'],
    ['both baseUrl and region', { ...credentials, baseUrl: 'https://a.test', region: 'eu', regions: { eu: 'https://b.test' } }, 'baseUrl'],
    ['region without regions', { ...credentials, region: 'eu' }, 'regions'],
    ['a relative baseUrl', { ...credentials, baseUrl: '/api' }, 'baseUrl'],
    ['a non-http baseUrl', { ...credentials, baseUrl: 'ftp://files.example.test' }, 'baseUrl'],
    ['a bad URL in regions', { ...credentials, region: 'eu', regions: { eu: 'not a url' } }, 'regions.eu'],
    ['a missing accountId', { passcode: 'x', baseUrl: 'https://a.test' }, 'accountId'],
    ['an empty passcode', { accountId: 'a', passcode: '', baseUrl: 'https://a.test' }, 'passcode'],
    ['a passcode with a space', { accountId: 'a', passcode: 'a b', baseUrl: 'https://a.test' }, 'passcode'],
    ['a zero timeout', { ...credentials, baseUrl: 'https://a.test', timeoutMs: 0 }, 'timeoutMs'],
    ['negative retries', { ...credentials, baseUrl: 'https://a.test', retry: { retries: -1 } }, 'retry.retries'],
    ['an unknown retry key', { ...credentials, baseUrl: 'https://a.test', retry: { attempts: 3 } }, 'retry'],
    ['a fetch that is not a function', { ...credentials, baseUrl: 'https://a.test', fetch: 'fetch' }, 'fetch'],
    ['a signal that is not an AbortSignal', { ...credentials, baseUrl: 'https://a.test', signal: {} }, 'signal'],
    ['a user agent with a newline', { ...credentials, baseUrl: 'https://a.test', userAgent: 'a\nb' }, 'userAgent'],
    ['a typo', { ...credentials, baseUrl: 'https://a.test', timeout: 5 }, 'options'],
  ])('rejects %s, naming the option', (_name, options, option) => {
    const error = optionError(options)
    expect(error.option).toBe(option)
    expect(error.code).toBe('ERR_INVALID_OPTIONS')
    expect(error.message).toContain(`\`${option}\``)
  })
})

describe('connectUrl', () => {
  it.each([
    ['https://api.example.test', 'https://api.example.test/v1/connect?partner=acme'],
    ['https://api.example.test/', 'https://api.example.test/v1/connect?partner=acme'],
    ['https://api.example.test/eu', 'https://api.example.test/eu/v1/connect?partner=acme'],
    ['https://api.example.test/eu/?x=1#frag', 'https://api.example.test/eu/v1/connect?partner=acme'],
  ])('resolves /v1/connect under %s', (base, expected) => {
    expect(connectUrl(base, 'acme')).toBe(expected)
  })

  it('encodes the partner name and leaves it out when absent', () => {
    expect(connectUrl('https://a.test', 'a b&c=d')).toBe('https://a.test/v1/connect?partner=a+b%26c%3Dd')
    expect(connectUrl('https://a.test', undefined)).toBe('https://a.test/v1/connect')
  })
})
