import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import pg from 'pg'

/*
 * One instance of the mixed-version test (test/upgrade/mixed-version.test.ts): a small
 * host program that uses the package as a service would, through the public API only,
 * so that the same file runs the previous version (its built dist/) and the current one
 * (src/). Started by the test as a child process; it reads from its environment:
 * - UPGRADE_INDEX, UPGRADE_POSTGRES: the modules of `passcode-auth` and
 *   `passcode-auth/postgres` of the version it runs;
 * - UPGRADE_DATABASE_URL: the shared PostgreSQL; the instance runs that version's
 *   `migrate()` first, as a host does at start;
 * - UPGRADE_PEPPER: the fleet's pepper, never printed.
 * It runs the expiry notifier every 300 ms and tells the test over IPC its port and
 * each email it sent (passcode id, kind, expiry). Routes, on 127.0.0.1 only:
 * - `GET /verify`: the passcode headers, checked by `nodeRequirePasscode`;
 * - `POST /manage` `{ op, accountId, passcodeId?, name?, expiryDays? }`: create, rotate
 *   (one hour of overlap: both values stay valid) and delete, as an admin.
 * On SIGTERM it stops the notifier, closes the service (which flushes its usage counts)
 * and exits 0.
 */

interface Version {
  createPasscodeAuth: typeof import('../../src/index').createPasscodeAuth
  nodeRequirePasscode: typeof import('../../src/index').nodeRequirePasscode
  startExpiryNotifier: typeof import('../../src/index').startExpiryNotifier
  PasscodeAuthError: typeof import('../../src/index').PasscodeAuthError
}
interface VersionPostgres {
  migrate: typeof import('../../src/stores/postgres/index').migrate
  postgresStore: typeof import('../../src/stores/postgres/index').postgresStore
}

const env = process.env
const { createPasscodeAuth, nodeRequirePasscode, startExpiryNotifier, PasscodeAuthError } = (await import(env.UPGRADE_INDEX!)) as Version
const { migrate, postgresStore } = (await import(env.UPGRADE_POSTGRES!)) as VersionPostgres
const admin = { userId: 'u_upgrade_admin', role: 'admin' } as const

const pool = new pg.Pool({ connectionString: env.UPGRADE_DATABASE_URL, max: 6, connectionTimeoutMillis: 5_000, keepAlive: true })
pool.on('error', () => {})
await migrate(pool)
const store = postgresStore(pool)
const auth = createPasscodeAuth({
  store,
  pepper: env.UPGRADE_PEPPER!,
  mailer: { send: async () => {} },
  recipients: (accountId) => [`admins@${accountId}.example`],
  // Counts reach the store once a second and on close.
  usage: { flushIntervalMs: 1_000 },
})
const notifier = startExpiryNotifier(auth, {
  intervalMs: 300,
  onReport: (report) => {
    const sent = report.sent.map((line) => `${line.passcodeId}|${line.kind}|${line.expiresAt.toISOString()}`)
    if (sent.length > 0) process.send?.({ type: 'sent', sent })
  },
})
const guard = nodeRequirePasscode(auth)

interface ManageRequest {
  readonly op: 'create' | 'rotate' | 'delete'
  readonly accountId: string
  readonly passcodeId?: string
  readonly name?: string
  readonly expiryDays?: number
}

async function manage(body: ManageRequest): Promise<{ id?: string; value?: string; expiresAt?: string | null }> {
  switch (body.op) {
    case 'create': {
      const { passcode, value } = await auth.passcodes.create(admin, body.accountId, { name: body.name!, expiry: body.expiryDays ?? 90 })
      return { id: passcode.id, value }
    }
    case 'rotate': {
      const { value } = await auth.passcodes.rotate(admin, body.accountId, body.passcodeId!, { overlapMinutes: 60 })
      return { value }
    }
    case 'delete':
      await auth.passcodes.delete(admin, body.accountId, body.passcodeId!)
      return {}
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.statusCode = status
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify(body))
}

async function readJson(request: IncomingMessage): Promise<ManageRequest> {
  let text = ''
  for await (const chunk of request) text += String(chunk)
  return JSON.parse(text) as ManageRequest
}

const server = createServer((request, response) => {
  const path = request.url?.split('?')[0]
  if (path === '/verify') {
    const principal = guard(request, response)
    if (principal instanceof Promise) void principal.then((who) => who !== undefined && reply(response, 200, { ok: true }))
    else reply(response, 200, { ok: true })
    return
  }
  if (path === '/manage' && request.method === 'POST') {
    readJson(request)
      .then(manage)
      .then(
        (result) => reply(response, 200, result),
        (error: unknown) => reply(response, 500, { code: error instanceof PasscodeAuthError ? error.code : 'ERR_UNEXPECTED' }),
      )
    return
  }
  reply(response, 404, {})
})
server.keepAliveTimeout = 30_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send?.({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 })
})

process.once('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  void notifier
    .stop()
    .then(() => auth.close())
    .then(() => store.close())
    .then(() => pool.end())
    .finally(() => process.exit(0))
})
