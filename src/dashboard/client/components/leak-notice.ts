// The leak notices (SPEC §5.42, §5.45): a passcode whose value was found in public shows
// a mark on its row, and its page a banner that says which, where they were found and
// what to do, until an admin acts: on Passcodes, rotates (or enables, or deletes) each
// account passcode; on Users, grants each user a new passcode (the leak revoked the old
// one). The member's own page says theirs was found and revoked. Everything from the
// server goes in as text, never as HTML; a URL is shown, not linked (it names a public
// place the reporter chose, not one of ours).
import { LEAKED_PASSCODE_ADVICE, LEAKED_USER_PASSCODE_ADVICE } from '../../../core/labels'
import { h, type Child } from '../dom'
import { byName } from '../format'
import type { Leak, Passcode, User } from '../wire'
import { time } from './time'

/** "found at https://…, reported by github on Jan 3, 2026, 9:00 AM (2 days ago)" for one leak. */
function where(leak: Leak): Child[] {
  return [
    leak.url === null ? null : ['found at ', h('span', { class: 'leak-url', dir: 'auto' }, leak.url), ', '],
    'reported by ',
    h('span', { class: 'leak-source', dir: 'auto' }, leak.source),
    ' on ',
    time(leak.reportedAt),
  ]
}

/**
 * A banner over a page's table. A region with its own heading (not an alert: it is there
 * on every load until an admin acts).
 */
function banner(title: string, items: readonly Child[], todo: string): HTMLElement {
  return h(
    'section',
    { class: 'leak-banner', id: 'leak-banner', role: 'region', 'aria-labelledby': 'leak-title' },
    h('h3', { id: 'leak-title' }, title),
    h(
      'ul',
      {},
      items.map((item) => h('li', {}, item)),
    ),
    h('p', { class: 'leak-todo' }, h('strong', {}, 'What to do: '), todo),
  )
}

/** What the Passcodes banner tells an admin to do: the advice of SPEC §5.45, as the leak email and docs/leaks.md give it. */
function passcodeTodo(count: number): string {
  return count === 1 ? LEAKED_PASSCODE_ADVICE : `For each of them: ${LEAKED_PASSCODE_ADVICE}`
}

/** The Passcodes page's banner, or `null` when no account passcode has an open leak mark. */
export function leakBanner(passcodes: readonly Passcode[], canManage: boolean): HTMLElement | null {
  const leaked = passcodes.filter((passcode) => passcode.leak).sort((a, b) => byName(a.name, b.name))
  if (leaked.length === 0) return null
  return banner(
    `${leaked.length === 1 ? '1 passcode was' : `${leaked.length} passcodes were`} found in public and disabled`,
    leaked.map((passcode) => [h('strong', { dir: 'auto' }, passcode.name), ' ', h('code', {}, passcode.hint), ': ', where(passcode.leak!)]),
    canManage ? passcodeTodo(leaked.length) : 'Ask an admin of this account to rotate or delete each one.',
  )
}

/**
 * The Users page's banner, or `null` when no user passcode has an open leak mark. Its
 * own page's, not the Passcodes banner's: what to do (grant) is done here, and the
 * account passcodes' advice (rotate, enable) does not apply to a revoked user passcode.
 */
export function userLeakBanner(users: readonly User[], canManage: boolean): HTMLElement | null {
  const who = (user: User): string => user.name || user.id
  const leaked = users.filter((user) => user.passcode?.leak).sort((a, b) => byName(who(a), who(b)))
  if (leaked.length === 0) return null
  return banner(
    `${leaked.length === 1 ? '1 user passcode was' : `${leaked.length} user passcodes were`} found in public and revoked`,
    leaked.map((user) => [
      h('strong', { dir: 'auto' }, who(user)),
      user.name ? [' ', h('span', { class: 'mono', dir: 'auto' }, user.id)] : null,
      ': ',
      where(user.passcode!.leak!),
    ]),
    canManage
      ? leaked.length === 1
        ? LEAKED_USER_PASSCODE_ADVICE
        : `For each of them: ${LEAKED_USER_PASSCODE_ADVICE}`
      : 'Ask an admin of this account to grant each user a new passcode.',
  )
}

/**
 * The mark on a leaked passcode's row (Passcodes and Users): words, not a colour alone,
 * where and when, and `todo` (what to do about it) when given; `null` for one not leaked.
 */
export function leakMark(leak: Leak | null, todo?: string): HTMLElement | null {
  if (!leak) return null
  return h(
    'span',
    { class: 'leak-mark' },
    h('span', { class: 'badge leaked' }, 'Found in public'),
    h('span', { class: 'leak-where' }, where(leak)),
    todo === undefined ? null : h('span', { class: 'leak-where leak-next' }, todo),
  )
}

/** The member's own page when their passcode was found in public: what happened, where, and whom to ask. */
export function ownLeakNotice(leak: Leak): HTMLElement {
  return h(
    'div',
    { class: 'leak-banner', id: 'leak-banner', role: 'region', 'aria-labelledby': 'leak-title' },
    h('h3', { id: 'leak-title' }, 'Your passcode was found in public and revoked'),
    h('p', {}, 'Its value was ', where(leak), '. It no longer works, so nobody can call the API as you with it.'),
    h('p', { class: 'leak-todo' }, h('strong', {}, 'What to do: '), 'ask an admin of this account to grant you a new passcode.'),
  )
}
