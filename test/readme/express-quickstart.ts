import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createPasscodeAuth } from 'passcode-auth'
import { connectHandler, requirePasscode } from 'passcode-auth/express'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const app = express()
// Partners check their credentials here: GET /v1/connect?partner=acme
app.all('/v1/connect', connectHandler(auth))
// Any other route: bad credentials get the SPEC's 400/401, good ones reach the handler.
app.get('/1/events.json', requirePasscode(auth), (req, res) => {
  res.json({ events: [], calledBy: req.passcodeAuth })
})

// Try it: an admin issues a passcode, then a partner calls both routes with it.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }

const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const connect = await fetch(`${base}/v1/connect?partner=acme`, { headers })
console.log(connect.status, await connect.text()) // 200 {"status":"success","message":"Authorised Successfully."}
const events = await fetch(`${base}/1/events.json`, { headers })
console.log(events.status, await events.text()) // 200 {"events":[],"calledBy":{"accountId":"acc_1","kind":"account",…}}
server.close()
