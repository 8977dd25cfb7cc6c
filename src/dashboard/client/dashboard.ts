// passcode-auth dashboard: the browser script of the Settings pages, bundled and
// minified by esbuild at build time (`npm run dashboard:assets`). This file is the
// router: the server names the page on <main data-page> (src/http/dashboard/pages.ts)
// and each page is one module of pages/. A new page is a file there, a line here and
// its entry in PAGES of pages.ts.
//
// Every string from the server is put into the page as text (dom.ts), never as HTML.
// The page's CSP allows this file and nothing inline.
import { context } from './context'
import { activityPage } from './pages/activity'
import { mePage } from './pages/me'
import { passcodesPage } from './pages/passcodes'
import { usersPage } from './pages/users'
import { webhooksPage } from './pages/webhooks'

const ROUTES: Readonly<Record<string, () => Promise<void>>> = {
  passcodes: passcodesPage,
  users: usersPage,
  me: mePage,
  activity: activityPage,
  webhooks: webhooksPage,
}

void ROUTES[context().page]?.()
