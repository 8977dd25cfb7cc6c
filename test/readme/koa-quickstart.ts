import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { createPasscodeAuth } from 'passcode-auth'
import { connectHandler, requirePasscode } from 'passcode-auth/koa'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = new Koa()
const connect = connectHandler(auth)
// Partners check their credentials here: GET /v1/connect?partner=acme
app.use((ctx, next) => (ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
// Every route below: bad credentials get the SPEC's 400/401, good ones go on.
app.use(requirePasscode(auth))
app.use((ctx) => {
  if (ctx.path === '/1/events.json') ctx.body = { events: [], calledBy: ctx.state.passcodeAuth }
})

// Try it: an admin issues a passcode, then a partner calls both routes with it.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }

const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const connectAnswer = await fetch(`${base}/v1/connect?partner=acme`, { headers })
console.log(connectAnswer.status, await connectAnswer.text()) // 200 {"status":"success","message":"Authorised Successfully."}
const events = await fetch(`${base}/1/events.json`, { headers })
console.log(events.status, await events.text()) // 200 {"events":[],"calledBy":{"accountId":"acc_1","kind":"account",…}}
server.close()
