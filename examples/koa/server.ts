/**
 * A minimal Koa host of passcode-auth. Run it from the repository root with
 *   npx tsx examples/koa/server.ts
 * and paste the curl line it prints. PORT picks the port (default 3000).
 */
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { createPasscodeAuth } from 'passcode-auth'
import { connectHandler, requirePasscode } from 'passcode-auth/koa'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = new Koa()
const connect = connectHandler(auth)
// Partners check a customer's credentials here: GET /v1/connect?partner=acme
app.use((ctx, next) => (ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
// Every route below: bad credentials get the 400/401 body, good ones go on.
app.use(requirePasscode(auth))
app.use((ctx) => {
  if (ctx.path === '/1/events.json') ctx.body = { events: [], calledBy: ctx.state.passcodeAuth }
})

// A passcode to try it with. A real host creates passcodes from its dashboard.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  console.log(`Koa example listening on ${url}`)
  console.log(`curl -i -H 'X-Service-Account-Id: acc_1' -H 'X-Service-Passcode: ${value}' '${url}/v1/connect?partner=acme'`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)))
}
