import { createPasscodeAuth } from 'passcode-auth'
import { connectHandler, requirePasscode } from 'passcode-auth/fetch'
import { memoryStore } from 'passcode-auth/memory'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })
const connect = connectHandler(auth)
const guard = requirePasscode(auth)

// One fetch handler, as Bun.serve, Deno.serve, Workers and Next.js route handlers take it.
async function handle(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url)
  if (pathname === '/v1/connect') return connect(request)
  const check = await guard(request) // every route below needs valid credentials
  if (!check.ok) return check.response // the SPEC's 400/401, as it is
  if (pathname === '/1/events.json') return Response.json({ events: [], calledBy: check.principal }, { headers: check.headers })
  return new Response('Not Found', { status: 404 })
}

// Try it: an admin issues a passcode, then a partner calls both routes with it.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }

const connectAnswer = await handle(new Request('http://localhost/v1/connect?partner=acme', { headers }))
console.log(connectAnswer.status, await connectAnswer.text()) // 200 {"status":"success","message":"Authorised Successfully."}
const events = await handle(new Request('http://localhost/1/events.json', { headers }))
console.log(events.status, await events.text()) // 200 {"events":[],"calledBy":{"accountId":"acc_1","kind":"account",…}}
// Serve it: Bun.serve({ fetch: handle }), Deno.serve(handle), or serve({ fetch: handle }) from @hono/node-server.
