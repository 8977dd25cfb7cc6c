// What the server put on <main> for the script (src/http/dashboard/pages.ts): which page
// this is, where the API is, who is signed in and what they may do. The API checks each
// right again; these only decide what the page offers.

/** The page's `data-` attributes, read once. */
export interface PageContext {
  /** The page's name in the router (src/dashboard/client/dashboard.ts): `passcodes`, `users`, `me`, `activity`. */
  readonly page: string
  /** The management API's path (`/settings/api`). */
  readonly api: string
  /** The mount point's path (`/settings`), `''` at the root. */
  readonly base: string
  /** The signed-in user's ID. */
  readonly userId: string
  /** Admins and members with write access to User Settings: create, edit, rotate, disable, delete. */
  readonly canManagePasscodes: boolean
  /** Admins: grant, reset, revoke, the accepted passcodes, Activity. */
  readonly canManageUsers: boolean
}

let current: PageContext | undefined

/** The context of this page, read from `#main` the first time. */
export function context(): PageContext {
  if (current === undefined) {
    const data = document.getElementById('main')?.dataset ?? {}
    current = {
      page: data.page ?? '',
      api: data.api ?? '',
      base: data.base ?? '',
      userId: data.userId ?? '',
      canManagePasscodes: data.canManagePasscodes === 'true',
      canManageUsers: data.canManageUsers === 'true',
    }
  }
  return current
}
