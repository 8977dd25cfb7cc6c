import { writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { leakRoute, readLeakKeys } from '../../src/cli/server/leak-route'
import type { Runtime } from '../../src/cli/runtime'
import type { RunningApp } from '../conformance/http'
import { GITHUB_SAMPLE, leakFixture, signedHeaders } from '../helpers/leak-reports'
import { listen } from '../http/frameworks'

const running: RunningApp[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()))
})

describe('serve --leak-keys: POST /v1/leaks on the reference server', () => {
  it("reads [{ id, pem }] and GitHub's list, and refuses a bad file with the setting's name", () => {
    const folder = mkdtempSync(join(tmpdir(), 'leak-keys-'))
    const github = join(folder, 'github.json')
    writeFileSync(github, JSON.stringify({ public_keys: [{ key_identifier: GITHUB_SAMPLE.keyId, key: GITHUB_SAMPLE.pem, is_current: true }] }))
    expect(readLeakKeys(github, '--leak-keys')).toEqual([{ id: GITHUB_SAMPLE.keyId, pem: GITHUB_SAMPLE.pem }])
    const broken = join(folder, 'broken.json')
    writeFileSync(broken, '{')
    expect(() => readLeakKeys(broken, '--leak-keys')).toThrow('--leak-keys')
  })

  it('answers a signed report over a socket, and refuses an unsigned one', async () => {
    const fixture = await leakFixture()
    const route = leakRoute({ auth: fixture.auth } as Runtime, fixture.publicKeys)
    const app = await listen((request, response) => void route.handle(request, response))
    running.push(app)
    const url = `http://127.0.0.1:${app.port}/v1/leaks`
    const response = await fetch(url, { method: 'POST', body: fixture.report, headers: signedHeaders(fixture.key, fixture.report) })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(fixture.expectedAnswer)
    expect((await fetch(url, { method: 'POST', body: fixture.report })).status).toBe(401)
  })
})
