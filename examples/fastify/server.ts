/**
 * A minimal Fastify host of passcode-auth. Run it from the repository root with
 *   npx tsx examples/fastify/server.ts
 * and paste the curl line it prints. PORT picks the port (default 3000).
 */
import Fastify from 'fastify'
import { createPasscodeAuth } from 'passcode-auth'
import { passcodeAuthPlugin } from 'passcode-auth/fastify'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = Fastify()
// Adds request.passcodeAuth, app.requirePasscode and GET /v1/connect?partner=…
await app.register(passcodeAuthPlugin, { auth })
// Any other route of the API: bad credentials get the 400/401 body, good ones reach the handler.
app.get('/1/events.json', { onRequest: app.requirePasscode }, async (request) => ({
  events: [],
  calledBy: request.passcodeAuth,
}))

// A passcode to try it with. A real host creates passcodes from its dashboard.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })

const url = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) })
console.log(`Fastify example listening on ${url}`)
console.log(`curl -i -H 'X-Service-Account-Id: acc_1' -H 'X-Service-Passcode: ${value}' '${url}/v1/connect?partner=acme'`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)))
}
