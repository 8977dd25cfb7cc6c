import { describe, expect, it } from 'vitest'
import { isCrossSite } from '../../src/dashboard/index'

const request = (method: string, headers: Record<string, string>) => ({ method, header: (name: string) => headers[name] })
const none = new Set<string>()

describe('isCrossSite (CSRF refusal of state-changing requests)', () => {
  it('lets safe methods through whatever their headers say', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(isCrossSite(request(method, { 'sec-fetch-site': 'cross-site' }), none)).toBe(false)
  })

  it('trusts Sec-Fetch-Site when present: same-origin and none pass, same-site and cross-site do not', () => {
    const verdict = (site: string) => isCrossSite(request('POST', { 'sec-fetch-site': site, host: 'app.example' }), none)
    expect(verdict('same-origin')).toBe(false)
    expect(verdict('none')).toBe(false)
    expect(verdict('same-site')).toBe(true)
    expect(verdict('cross-site')).toBe(true)
  })

  it('without it, compares Origin with Host, or with the trusted origins', () => {
    expect(isCrossSite(request('DELETE', { origin: 'https://app.example', host: 'app.example' }), none)).toBe(false)
    expect(isCrossSite(request('DELETE', { origin: 'https://APP.example', host: 'App.Example' }), none)).toBe(false)
    expect(isCrossSite(request('DELETE', { origin: 'https://app.example:8443', host: 'app.example' }), none)).toBe(true)
    expect(isCrossSite(request('PUT', { origin: 'https://evil.example', host: 'app.example' }), none)).toBe(true)
    expect(isCrossSite(request('PUT', { origin: 'null', host: 'app.example' }), none)).toBe(true)
    expect(isCrossSite(request('PUT', { origin: 'https://admin.example', host: 'api.internal' }), new Set(['https://admin.example']))).toBe(false)
  })

  it('answers true for an Origin that is not a URL, never throws; the trusted origins default to none', () => {
    for (const origin of ['garbage', 'http://[', 'http://', 'https://a b', '']) {
      expect(isCrossSite(request('POST', { origin, host: 'app.example' }))).toBe(true)
    }
  })

  it('lets a request with neither header through: it does not come from a browser', () => {
    expect(isCrossSite(request('PATCH', { host: 'app.example' }), none)).toBe(false)
  })
})
