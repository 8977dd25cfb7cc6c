/**
 * The packages the benchmark needs beyond the root devDependencies (autocannon and
 * the better-auth peer). They live in bench/node_modules only, so they are loaded by
 * a name held in a variable: the root type check (which covers bench/) then passes
 * whether or not `npm --prefix bench install` has run, and the few members used are
 * typed here.
 */

/** The part of an autocannon result the report uses. */
export interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number }
  readonly latency: { readonly p50: number; readonly p99: number; readonly average: number }
  readonly duration: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly '2xx': number
}

/** The autocannon options used here. */
export interface AutocannonOptions {
  readonly url: string
  readonly connections: number
  readonly duration: number
  readonly pipelining?: number
  readonly headers?: Record<string, string>
}

type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>

const load = (name: string): Promise<Record<string, unknown>> => import(name) as Promise<Record<string, unknown>>

/** autocannon's main function. */
export async function loadAutocannon(): Promise<Autocannon> {
  const module = await load('autocannon')
  return (module.default ?? module) as Autocannon
}

/** What a verification through better-auth's API-key plugin answers. */
export interface BetterAuthVerifyResult {
  readonly valid: boolean
  readonly key: { readonly referenceId: string } | null
}

/** A better-auth instance with the API-key plugin over its memory adapter, and one key. */
export interface BetterAuthPeer {
  /** The plain API key to send. */
  readonly key: string
  /** `auth.api.verifyApiKey({ body: { key } })`. */
  verify(key: string): Promise<BetterAuthVerifyResult>
  /** Package versions, for the report. */
  readonly versions: { readonly 'better-auth': string; readonly '@better-auth/api-key': string }
}

/**
 * Sets up the peer the way its documentation does for a server: memory adapter, the
 * API-key plugin with its rate limit off (passcode-auth has none on this path either),
 * better-auth's own rate limiter and telemetry off, one user and one key.
 */
export async function createBetterAuthPeer(): Promise<BetterAuthPeer> {
  const { betterAuth } = (await load('better-auth')) as { betterAuth: (options: unknown) => BetterAuthInstance }
  const { memoryAdapter } = (await load('better-auth/adapters/memory')) as { memoryAdapter: (db: unknown) => unknown }
  const { apiKey } = (await load('@better-auth/api-key')) as { apiKey: (options: unknown) => unknown }
  const auth = betterAuth({
    database: memoryAdapter({ user: [], session: [], account: [], verification: [], apikey: [] }),
    secret: 'bench-only-secret-not-used-anywhere-else-0123456789',
    baseURL: 'http://127.0.0.1',
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: { disabled: true },
    plugins: [apiKey({ rateLimit: { enabled: false } })],
  })
  const { user } = await auth.api.signUpEmail({ body: { email: 'bench@example.com', password: 'bench-password-1', name: 'Bench' } })
  const { key } = await auth.api.createApiKey({ body: { userId: user.id, name: 'bench' } })
  return {
    key,
    verify: (value) => auth.api.verifyApiKey({ body: { key: value } }),
    versions: { 'better-auth': await versionOf('better-auth'), '@better-auth/api-key': await versionOf('@better-auth/api-key') },
  }
}

interface BetterAuthInstance {
  api: {
    signUpEmail(input: { body: { email: string; password: string; name: string } }): Promise<{ user: { id: string } }>
    createApiKey(input: { body: { userId: string; name: string } }): Promise<{ key: string }>
    verifyApiKey(input: { body: { key: string } }): Promise<BetterAuthVerifyResult>
  }
}

/** The installed version of a bench dependency (read from bench/node_modules). */
export async function versionOf(name: string): Promise<string> {
  const { readFile } = await import('node:fs/promises')
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url)
  try {
    return (JSON.parse(await readFile(url, 'utf8')) as { version: string }).version
  } catch {
    return 'not installed'
  }
}
