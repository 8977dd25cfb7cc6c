import { createServer } from 'node:http'
import { pgInstance } from './pg-instances'

/*
 * One instance of the limits fleet test (limits-fleet.test.ts), a child process: a pg
 * Pool over LIMITS_DATABASE_URL (direct, or through PgBouncer in transaction mode, with
 * LISTEN on LIMITS_LISTEN_URL), the store of schema LIMITS_SCHEMA and the service, behind
 * `GET /verify` on 127.0.0.1: the credential headers, answered with the outcome's status
 * and error. It tells the parent its port; on the parent's `close` it closes the service
 * (its leases go back to the store) and says `closed`.
 */

const env = process.env
const instance = pgInstance(env.LIMITS_DATABASE_URL!, env.LIMITS_SCHEMA!, {
  storeOptions: env.LIMITS_LISTEN_URL === undefined ? {} : { listenConnectionString: env.LIMITS_LISTEN_URL },
})

const server = createServer((request, response) => {
  const accountId = request.headers['x-account-id']
  const passcode = request.headers['x-passcode']
  void instance.auth.authenticate({ accountId: String(accountId), passcode: String(passcode) }).then((outcome) => {
    response.statusCode = outcome.ok ? 200 : outcome.statusCode
    response.end(outcome.ok ? 'ok' : outcome.reason)
  })
})
server.keepAliveTimeout = 30_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send?.({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 })
})

process.on('message', (message: { type?: string }) => {
  if (message.type !== 'close') return
  void instance.close().then(() => {
    server.close()
    server.closeAllConnections()
    process.send?.({ type: 'closed' }, () => process.exit(0))
  })
})
