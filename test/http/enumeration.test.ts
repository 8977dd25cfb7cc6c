import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningApp } from '../conformance/http'
import { createHttpFixture, type HttpFixture } from './fixture'
import { FRAMEWORKS } from './frameworks'
import { requestBytes, type RawRequest } from './raw-client'

/**
 * Enumeration through HTTP (SPEC §5.1): every refusal that is not a matched, expired
 * credential is the same response, not only the same body: status line, every header
 * (names, values, order) and body, byte for byte, on both routes of every framework.
 * Only `Date` is left out, since it changes by the second.
 */

/** The whole response as received, with the Date header line removed. */
function rawResponse(port: number, request: RawRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('end', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('latin1')
          .replace(/\r\nDate: [^\r]*/i, ''),
      ),
    )
    socket.write(requestBytes(request, port))
  })
}

const REFUSALS: Readonly<Record<string, (f: HttpFixture) => readonly [string, string]>> = {
  'unknown account': (f) => ['acc_nobody', f.passcodes.active],
  'wrong passcode': (f) => [f.accountId, f.passcodes.unknown],
  "another account's passcode": (f) => [f.accountId, f.passcodes.otherAccount],
  'deleted passcode': (f) => [f.accountId, f.passcodes.deleted],
  'disabled (and expired) passcode': (f) => [f.accountId, f.passcodes.disabled],
  'revoked user passcode': (f) => [f.accountId, f.passcodes.revokedUser],
}
const INVALID_CREDENTIALS = '{"status":"fail","error":"Invalid Credentials","code":400}'

describe('enumeration: the 400 response is byte-identical for every kind of wrong credential', () => {
  let fixture: HttpFixture
  const apps = new Map<string, RunningApp>()

  beforeAll(async () => {
    fixture = await createHttpFixture()
    for (const target of FRAMEWORKS) apps.set(target.name, await target.start(fixture.auth))
  })
  afterAll(async () => {
    await Promise.all([...apps.values()].map((app) => app.close()))
    await fixture?.close()
  })

  describe.each(FRAMEWORKS.map((target) => [target.name]))('%s', (name) => {
    it.each([
      ['GET /v1/connect?partner=acme', '/v1/connect?partner=acme'],
      ['the protected route', '/1/events.json'],
    ])('%s', async (_, target) => {
      const responses = new Map<string, string>()
      for (const [kind, credentials] of Object.entries(REFUSALS)) {
        const [accountId, passcode] = credentials(fixture)
        responses.set(
          kind,
          await rawResponse(apps.get(name)!.port, {
            target,
            headers: [
              ['X-Service-Account-Id', accountId],
              ['X-Service-Passcode', passcode],
            ],
          }),
        )
      }
      const first = responses.get('unknown account')!
      expect(first.startsWith('HTTP/1.1 400 ')).toBe(true)
      expect(first.endsWith(`\r\n\r\n${INVALID_CREDENTIALS}`)).toBe(true)
      for (const [kind, response] of responses) expect({ kind, response }).toEqual({ kind, response: first })
    })
  })
})
