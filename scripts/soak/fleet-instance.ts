import pg from 'pg'
import { serveInstance } from './instance-server'
import { nodeWebhookSender } from '../../src/http/node/webhook-sender'
import {
  ConfigurationError,
  createPasscodeAuth,
  nodeRequirePasscode,
  PasscodeAuthError,
  startExpiryNotifier,
  startWebhookDispatcher,
} from '../../src/index'
import { smtpMailer } from '../../src/mailers/smtp/index'
import type { WebhookSender } from '../../src/ports/webhook-sender'
import { postgresStore, type PostgresStore } from '../../src/stores/postgres/index'

/*
 * One instance of the fleet soak (`npm run soak -- --fleet`): a small host program that
 * uses the package as a service would, started by the runner as a child process. It
 * reads its settings from the environment the runner gives it:
 * - SOAK_DATABASE_URL: the pool's PostgreSQL (through PgBouncer in transaction mode, or
 *   direct), reached through the runner's TCP proxy so that it can be cut silently;
 * - SOAK_LISTEN_URL (optional): the store's direct connection for LISTEN only;
 * - SOAK_PEPPER, SOAK_ENCRYPTION_KEY (`id:key`): the fleet's secrets, never printed;
 * - SOAK_POOL: `documented` (the default), a pool with the settings docs/operations.md
 *   recommends, or `pg-defaults`, the pool as pg's README makes it. When `postgresStore`
 *   refuses the pool (a `ConfigurationError`), the instance tells the runner and exits.
 * Routes, on 127.0.0.1 only:
 * - `GET /verify`: the passcode headers, checked by `nodeRequirePasscode`;
 * - `POST /manage` `{ op, accountId, passcodeId?, name? }`: the host's own management
 *   (create, delete, rotate with no overlap, disable), as an admin, so that the writes
 *   and their notifications come from the instances.
 * With SOAK_SMTP_PORT (the chaos mode for delivery, `--delivery`), it also runs a webhook
 * dispatcher (loopback receivers allowed, a 20 s lease) and an expiry notifier (every
 * 2 s, a 20 s lease) mailing through the runner's SMTP server, and `/manage` takes
 * `create` with `expiry`, `webhook` `{ url }` (an endpoint for every event type) and
 * `leak` `{ value }` (a leak report of that value).
 * It tells the runner its port, each delivery state change (`invalidations.*` events),
 * and how many webhook attempts it has on the way (`sending`), over IPC.
 */

const env = process.env
const admin = { userId: 'u_soak_admin', role: 'admin' } as const

const pool = new pg.Pool(
  env.SOAK_POOL === 'pg-defaults'
    ? { connectionString: env.SOAK_DATABASE_URL, max: 4 }
    : { connectionString: env.SOAK_DATABASE_URL, max: 10, connectionTimeoutMillis: 2_000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 },
)
pool.on('error', () => {})

let store: PostgresStore
try {
  store = postgresStore(pool, env.SOAK_LISTEN_URL ? { listenConnectionString: env.SOAK_LISTEN_URL } : {})
} catch (error) {
  if (!(error instanceof ConfigurationError)) throw error
  // The runner reports the refusal; no traffic runs against a fleet that refused to start.
  await new Promise((resolve) => process.send?.({ type: 'refused', refusal: `${error.name}: ${error.message}` }, resolve) ?? resolve(undefined))
  process.exit(1)
}
const [keyId, key] = (env.SOAK_ENCRYPTION_KEY ?? '').split(':') as [string, string]
const delivery = env.SOAK_SMTP_PORT !== undefined

/** The Node sender, counting the attempts on the way for the runner (which kills an instance while it delivers). */
function countingSender(sender: WebhookSender): WebhookSender {
  let sending = 0
  const tell = () => process.send?.({ type: 'sending', sending })
  return {
    check: (url, policy) => sender.check(url, policy),
    async send(request) {
      sending++
      tell()
      try {
        return await sender.send(request)
      } finally {
        sending--
        tell()
      }
    },
  }
}

const auth = createPasscodeAuth({
  store,
  pepper: env.SOAK_PEPPER!,
  encryptionKeys: [{ id: keyId, key }],
  onEvent(event) {
    if (event.type.startsWith('invalidations.')) process.send?.({ type: 'event', event: event.type, at: Date.now() })
  },
  ...(delivery && {
    mailer: smtpMailer({ from: 'soak@soak.test', host: '127.0.0.1', port: Number(env.SOAK_SMTP_PORT), ignoreTLS: true, connectionTimeoutMs: 2_000 }),
    recipients: (accountId: string) => [`admin+${accountId}@soak.test`],
    notifier: { leaseMs: 20_000, sendTimeoutMs: 10_000 },
    webhooks: { allowPrivateAddresses: true, leaseMs: 20_000, sender: countingSender(nodeWebhookSender()) },
  }),
})
const guard = nodeRequirePasscode(auth)
const dispatcher = delivery ? startWebhookDispatcher(auth) : undefined
const notifier = delivery ? startExpiryNotifier(auth, { intervalMs: 2_000 }) : undefined

interface ManageRequest {
  readonly op: 'create' | 'delete' | 'rotate' | 'disable' | 'webhook' | 'leak'
  readonly accountId: string
  readonly passcodeId?: string
  readonly name?: string
  /** Days until a created passcode expires, in decimal. @default 90 */
  readonly expiry?: string
  readonly url?: string
  readonly value?: string
  /** Credits of a created passcode (SPEC §5.50), in decimal. @default none */
  readonly credits?: string
}

async function manage(body: ManageRequest): Promise<{ id?: string; value?: string; secret?: string; label?: string }> {
  switch (body.op) {
    case 'create': {
      const { passcode, value } = await auth.passcodes.create(admin, body.accountId, {
        name: body.name!,
        expiry: Number(body.expiry ?? 90),
        ...(body.credits !== undefined && { credits: { remaining: Number(body.credits) } }),
      })
      return { id: passcode.id, value }
    }
    case 'webhook': {
      const { endpoint, secret } = await auth.webhooks.create(admin, body.accountId, { url: body.url!, events: 'all' })
      return { id: endpoint.id, secret }
    }
    case 'leak': {
      const [verdict] = await auth.leaks.report([body.value!], { source: 'soak' })
      return { label: verdict!.label }
    }
    case 'rotate': {
      const { value } = await auth.passcodes.rotate(admin, body.accountId, body.passcodeId!, { overlapMinutes: 0 })
      return { value }
    }
    case 'disable':
      await auth.passcodes.disable(admin, body.accountId, body.passcodeId!)
      return {}
    case 'delete':
      await auth.passcodes.delete(admin, body.accountId, body.passcodeId!)
      return {}
  }
}

serveInstance({
  guard,
  manage: (body) => manage(body as ManageRequest),
  errorCode: (error) => (error instanceof PasscodeAuthError ? error.code : 'ERR_UNEXPECTED'),
  close: () =>
    Promise.all([dispatcher?.stop(), notifier?.stop()])
      .then(() => auth.close())
      .then(() => store.close())
      .then(() => pool.end()),
})
