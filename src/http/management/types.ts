import type { Actor } from '../../core/entities'

/**
 * Who is calling the management API, as the host's session says: the account they
 * manage and who they are in it. The account never comes from the URL or the body.
 *
 * @example
 * ```ts
 * const session: DashboardSession = { accountId: 'acc_1', actor: { userId: 'u_42', role: 'admin' } }
 * ```
 */
export interface DashboardSession {
  /** The account the signed-in user manages. */
  readonly accountId: string
  /** The signed-in user and their role in that account. */
  readonly actor: Actor
}

/**
 * What a session resolver may answer: a session, or nothing (the API answers 401).
 *
 * @example
 * ```ts
 * const resolve = (signedIn: boolean): SessionResult => (signedIn ? { accountId: 'acc_1', actor: { userId: 'u_1', role: 'member' } } : undefined)
 * ```
 */
export type SessionResult = DashboardSession | null | undefined

/**
 * One person of the host's user directory, for the Users page. Only `id` is required;
 * `name` and `email` are shown beside it when given.
 *
 * @example
 * ```ts
 * const users = async (accountId: string): Promise<DirectoryUser[]> => [{ id: 'u_42', name: 'Amy', email: 'amy@example.com' }]
 * ```
 */
export interface DirectoryUser {
  /** The user's ID, as user passcodes are granted to. */
  readonly id: string
  /** A display name. */
  readonly name?: string
  /** An email address, shown beside the name. */
  readonly email?: string
}

/**
 * A request as the management API and dashboard read it, whatever the framework:
 * each mount (Express, Fastify, Koa, Hono, fetch, Node's `http`) builds one.
 *
 * @example
 * ```ts
 * const request: DashboardRequest = {
 *   method: 'GET',
 *   path: '/audit',
 *   query: 'action=passcode.rotated&limit=20',
 *   header: (name) => (name === 'host' ? 'app.example' : undefined),
 *   body: async () => undefined,
 * }
 * ```
 */
export interface DashboardRequest {
  /** Upper-case method. */
  readonly method: string
  /** The path below the mount point, starting with `/`, without the query string. */
  readonly path: string
  /**
   * The query string after `?`, still percent-encoded, without the `?` (`''` or absent
   * when there is none): what `GET /audit` reads its filters from. Optional so that a
   * mount written before it still compiles; such a mount's requests have no query.
   * @default undefined
   */
  readonly query?: string
  /** A header by lower-case name; a repeated header may come joined with `", "`. */
  header(this: void, lowerCaseName: string): string | undefined
  /**
   * The request body: `{ text }` when the mount read the raw bytes, `{ parsed }` when
   * the framework already parsed JSON, `undefined` when there is none. Read only for
   * routes that take a body.
   */
  body(this: void): Promise<DashboardBody>
}

/**
 * See {@link DashboardRequest.body}.
 *
 * @example
 * ```ts
 * const raw: DashboardBody = { text: '{"name":"Acme","expiry":90}' }
 * ```
 */
export type DashboardBody =
  | {
      /** The raw body text, when the framework left it unparsed. */
      readonly text: string
    }
  | {
      /** The body as the framework's JSON parser already read it. */
      readonly parsed: unknown
    }
  | undefined

/**
 * A framework-neutral answer: each mount writes exactly this.
 *
 * @example
 * ```ts
 * const answer: DashboardResponse = { statusCode: 204, headers: { 'cache-control': 'no-store' }, body: '' }
 * ```
 */
export interface DashboardResponse {
  /** The HTTP status. */
  readonly statusCode: number
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>
  /** Empty for 204. */
  readonly body: string
}
