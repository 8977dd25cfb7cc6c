import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { githubPublicKeys, leakReportHandler, type LeakReportKey } from '../../fetch/index'
import { CliError } from '../exit-codes'
import type { Runtime } from '../runtime'
import type { Route } from './route'

/**
 * The keys of `--leak-keys <file>` (or `PASSCODE_AUTH_LEAK_KEYS`): a JSON file holding
 * `[{ id, pem }]` or GitHub's published list `{ public_keys: [{ key_identifier, key }] }`.
 */
export function readLeakKeys(file: string, setting: string): readonly LeakReportKey[] {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    throw new CliError('ERR_SETTING', `Invalid setting ${setting}: cannot read ${file} as JSON`, { setting })
  }
  try {
    return Array.isArray(json) ? (json as LeakReportKey[]) : githubPublicKeys(json)
  } catch (error) {
    throw new CliError('ERR_SETTING', `Invalid setting ${setting}: ${(error as Error).message}`, { setting })
  }
}

/** `POST /v1/leaks` of the reference server: the fetch entry's handler over Node's request, streamed. */
export function leakRoute(runtime: Runtime, publicKeys: readonly LeakReportKey[]): Route {
  const handler = leakReportHandler(runtime.auth, { publicKeys })
  return {
    path: '/v1/leaks',
    methods: '*',
    async handle(request, response) {
      const method = request.method ?? 'GET'
      const body = method === 'GET' || method === 'HEAD' ? null : (Readable.toWeb(request) as ReadableStream<Uint8Array>)
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value)
      const answer = await handler(new Request('http://localhost/v1/leaks', { method, headers, body, duplex: 'half' } as RequestInit))
      response.statusCode = answer.status
      answer.headers.forEach((value, name) => response.setHeader(name, value))
      response.end(Buffer.from(await answer.arrayBuffer()))
    },
  }
}
