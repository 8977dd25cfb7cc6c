/**
 * A minimal Express host of passcode-auth. Run it from the repository root with
 *   npx tsx examples/express/server.ts
 * and paste the curl line it prints. PORT picks the port (default 3000).
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createPasscodeAuth } from 'passcode-auth'
import { connectHandler, requirePasscode } from 'passcode-auth/express'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = express()
// Partners check a customer's credentials here: GET /v1/connect?partner=acme
app.all('/v1/connect', connectHandler(auth))
// Any other route of the API: bad credentials get the 400/401 body, good ones reach the handler.
app.get('/1/events.json', requirePasscode(auth), (req, res) => {
  res.json({ events: [], calledBy: req.passcodeAuth })
})

// A passcode to try it with. A real host creates passcodes from its dashboard.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  console.log(`Express example listening on ${url}`)
  console.log(`curl -i -H 'X-Service-Account-Id: acc_1' -H 'X-Service-Passcode: ${value}' '${url}/v1/connect?partner=acme'`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)))
}
