import Fastify from 'fastify'
import { createPasscodeAuth } from 'passcode-auth'
import { passcodeAuthPlugin } from 'passcode-auth/fastify'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = Fastify()
// Adds request.passcodeAuth, app.requirePasscode and GET /v1/connect?partner=…
await app.register(passcodeAuthPlugin, { auth })
// Bad credentials get the SPEC's 400/401; good ones reach the handler.
app.get('/1/events.json', { onRequest: app.requirePasscode }, async (request) => ({
  events: [],
  calledBy: request.passcodeAuth,
}))

// Try it: an admin issues a passcode, then a partner calls both routes with it.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }

const connect = await app.inject({ url: '/v1/connect?partner=acme', headers })
console.log(connect.statusCode, connect.body) // 200 {"status":"success","message":"Authorised Successfully."}
const events = await app.inject({ url: '/1/events.json', headers })
console.log(events.statusCode, events.body) // 200 {"events":[],"calledBy":{"accountId":"acc_1","kind":"account",…}}
await app.close()
