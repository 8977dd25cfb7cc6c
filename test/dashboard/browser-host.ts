import express from 'express'
import { createPasscodeAuth, type PasscodeAuth } from '../../src/index'
import { connectHandler, dashboard } from '../../src/express/index'
import type { DashboardSession, DirectoryUser } from '../../src/dashboard/index'
import { memoryStore } from '../../src/memory'
import type { RunningApp } from '../conformance/http'
import { listen } from '../http/frameworks'
import { manualClock, TEST_KEY } from '../helpers/service'

/** The people of the test account, and who they are to the dashboard. */
export const PEOPLE = {
  admin: { accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } },
  member: { accountId: 'acc_1', actor: { userId: 'u_member', role: 'member' } },
  amy: { accountId: 'acc_1', actor: { userId: 'u_amy', role: 'member' } },
} as const satisfies Record<string, DashboardSession>

const DIRECTORY: readonly DirectoryUser[] = [
  { id: 'u_amy', name: 'Amy Example', email: 'amy@example.test' },
  { id: 'u_member', name: 'Mo Member' },
]

/** A host as a real service would be: its own login (a cookie), the dashboard at /settings, and /v1/connect. */
export interface BrowserHost {
  readonly origin: string
  readonly auth: PasscodeAuth
  readonly clock: ReturnType<typeof manualClock>
  close(): Promise<void>
}

/**
 * Starts the host on 127.0.0.1. `GET /login?as=<person>` signs in (an opaque cookie,
 * HttpOnly, SameSite=Lax, like a typical host session); the dashboard's session
 * resolver looks the cookie up, and nothing else.
 */
export async function startBrowserHost(): Promise<BrowserHost> {
  const clock = manualClock(Date.UTC(2026, 0, 1))
  const auth = createPasscodeAuth({
    store: memoryStore(),
    partners: ['acme', 'globex'],
    clock,
    encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    cache: false,
  })
  const sessions = new Map<string, DashboardSession>()
  const app = express()
  app.get('/login', (req, res) => {
    const person = PEOPLE[req.query.as as keyof typeof PEOPLE]
    if (person === undefined) return void res.status(400).send('who?')
    const sid = crypto.randomUUID()
    sessions.set(sid, person)
    res.setHeader('set-cookie', `sid=${sid}; Path=/; HttpOnly; SameSite=Lax`)
    res.redirect(303, (req.query.to as string | undefined) ?? '/settings/')
  })
  const cookie = (header: string | undefined, name: string) =>
    header
      ?.split(';')
      .map((part) => part.trim().split('='))
      .find(([key]) => key === name)?.[1]
  app.use(
    '/settings',
    dashboard(auth, {
      session: (req) => sessions.get(cookie(req.headers.cookie, 'sid') ?? ''),
      users: () => DIRECTORY,
      loginUrl: '/login',
    }),
  )
  app.all('/v1/connect', connectHandler(auth))
  const running: RunningApp = await listen(app)
  return { origin: `http://127.0.0.1:${running.port}`, auth, clock, close: running.close }
}
