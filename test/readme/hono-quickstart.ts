import { Hono } from 'hono'
import { createPasscodeAuth } from 'passcode-auth'
import { connectHandler, requirePasscode } from 'passcode-auth/hono'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = new Hono()
// Partners check their credentials here: GET /v1/connect?partner=acme
app.all('/v1/connect', connectHandler(auth))
// Bad credentials get the SPEC's 400/401; good ones reach the handler, with c.var.passcodeAuth.
app.get('/1/events.json', requirePasscode(auth), (c) => c.json({ events: [], calledBy: c.var.passcodeAuth }))

// Try it: an admin issues a passcode, then a partner calls both routes with it.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }

const connect = await app.request('/v1/connect?partner=acme', { headers })
console.log(connect.status, await connect.text()) // 200 {"status":"success","message":"Authorised Successfully."}
const events = await app.request('/1/events.json', { headers })
console.log(events.status, await events.text()) // 200 {"events":[],"calledBy":{"accountId":"acc_1","kind":"account",…}}
// Serve it: export default app (Bun, Deno, Workers), or serve(app) from @hono/node-server.
