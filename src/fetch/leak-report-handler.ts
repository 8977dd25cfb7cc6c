import { createLeakReport, type LeakReportOptions } from '../http/leaks/leak-report'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * The leak report endpoint (SPEC §5.42, usually `POST /v1/leaks`) over web-standard
 * `Request`/`Response`: takes GitHub's secret scanning partner reports, checks the
 * ECDSA P-256 signature over the raw body with `publicKeys` (WebCrypto), answers each
 * token `true_positive` or `false_positive` and disables the live ones
 * (`auth.leaks.report`). Unsigned, wrongly signed or unknown key: 401; a body over
 * 1 MiB: 413 (not read further); malformed: 400; each `{"error":{"code","message"}}`,
 * and nothing changes.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `publicKeys`: `[{ id, pem }]` or a function returning them (see `githubPublicKeys`)
 * @example
 * ```ts
 * import { githubPublicKeys, leakReportHandler } from 'passcode-auth/fetch'
 *
 * const keys = githubPublicKeys(await fetch('https://api.github.com/meta/public_keys/secret_scanning').then((r) => r.json()))
 * const leaks = leakReportHandler(auth, { publicKeys: keys })
 * Deno.serve((request) => (new URL(request.url).pathname === '/v1/leaks' ? leaks(request) : new Response(null, { status: 404 })))
 * ```
 */
export function leakReportHandler(auth: PasscodeAuth, options: LeakReportOptions): (request: Request) => Promise<Response> {
  const leakReport = createLeakReport(auth, options)
  return async function handleLeakReport(request) {
    const result = await leakReport({
      header: (name) => request.headers.get(name) ?? undefined,
      method: request.method,
      body: request.bodyUsed ? 'parsed' : request.body,
    })
    return new Response(result.body, { status: result.statusCode, headers: new Headers(result.headers) })
  }
}
