import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { assertPasscodeAuth, assertSessionOption, dashboardBasePath } from '../adapter-options'
import { createDashboard, type DashboardOptions } from '../dashboard/create-dashboard'
import type { DashboardResponse, SessionResult } from '../management/types'

/** What a fetch-based mount hands {@link FetchDashboard.answer} besides the `Request`. */
export interface FetchDashboardIo {
  /** The request's URL, parsed once by the mount. */
  readonly url: URL
  /** The request body as text (`''` for none): `request.text()`, or the framework's cached reader. */
  readonly text: () => Promise<string>
  /** The host's session resolver, called with the framework's request object. */
  readonly session: () => SessionResult | Promise<SessionResult>
}

/** The dashboard over web-standard `Request`/`Response`, shared by the fetch and Hono mounts. */
export interface FetchDashboard {
  /** Whether a URL's path is `basePath` or below it. */
  inside(url: URL): boolean
  /** The dashboard's answer; a path outside `basePath` gets its 404. */
  answer(request: Request, io: FetchDashboardIo): Promise<Response>
}

// A copy of the headers: answers share frozen header objects, and a server may add to
// the object a Response was made with (@hono/node-server sets Content-Length on it).
const toResponse = (answer: DashboardResponse, head: boolean): Response =>
  new Response(answer.statusCode === 204 || head ? null : answer.body, { status: answer.statusCode, headers: { ...answer.headers } })

/**
 * The glue of the dashboard mounts over web-standard `Request`/`Response`: checks
 * `auth`, `session` and `basePath` when the mount is created, then answers each request
 * through {@link createDashboard} with the path below `basePath`.
 *
 * @param options - the mount's options: `basePath`, `session` and {@link DashboardOptions}
 * @param signature - the `session` function's shape, for the message of a missing one
 * @example
 * ```ts
 * const glue = fetchDashboard(auth, options, '(request) => { accountId, actor } | undefined')
 * const answer = (request: Request) => {
 *   const url = new URL(request.url)
 *   return glue.answer(request, { url, text: () => request.text(), session: () => options.session(request) })
 * }
 * ```
 */
export function fetchDashboard(auth: PasscodeAuth, options: DashboardOptions & { readonly basePath: string }, signature: string): FetchDashboard {
  assertPasscodeAuth(auth, 'dashboard')
  assertSessionOption(options, signature)
  const base = dashboardBasePath(options.basePath)
  const handler = createDashboard(auth, options)
  const inside = (url: URL) => url.pathname === base || url.pathname.startsWith(`${base}/`)
  return {
    inside,
    async answer(request, io) {
      const method = request.method.toUpperCase()
      const answer = await handler.handle(
        {
          method,
          base,
          // Outside basePath: a path the dashboard has not, so its 404.
          path: inside(io.url) ? io.url.pathname.slice(base.length) || '/' : '/not-the-dashboard',
          query: io.url.search.slice(1),
          header: (name) => request.headers.get(name) ?? undefined,
          body: async () => {
            const text = await io.text()
            return text === '' ? undefined : { text }
          },
        },
        io.session,
      )
      return toResponse(answer, method === 'HEAD')
    },
  }
}
