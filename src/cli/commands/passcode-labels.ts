import type { PasscodeView } from '../../index'
import { statusLabel } from '../../dashboard/index'
import { formatInstant } from '../output'

// How `passcodes` commands show a passcode: the cells of `list` and the lines of a result.

/** The PARTNERS column and line: who the passcode works for on /v1/connect. */
export function partnersLabel(passcode: PasscodeView): string {
  if (passcode.partners === null) return 'any'
  const gone = new Set(passcode.partnersNotWhitelisted)
  const names = passcode.partners.map((name) => (gone.has(name) ? `${name} (not whitelisted)` : name)).join(', ')
  return gone.size === passcode.partners.length ? `${names}: works for no partner` : names
}

/** The LAST USED column: when, by which partner, and whether it counts as unused. */
export function lastUsedLabel(passcode: PasscodeView): string {
  if (passcode.lastUsedAt === null) return 'never (unused)'
  const partner = passcode.lastUsedPartner === null ? '' : ` by ${passcode.lastUsedPartner}`
  return `${formatInstant(passcode.lastUsedAt)}${partner}${passcode.unused ? ' (unused 90+ days)' : ''}`
}

export function describe(passcode: PasscodeView): string {
  const expires = passcode.expiresAt === null ? 'never expires' : `expires ${formatInstant(passcode.expiresAt)}`
  const bound = passcode.partners === null ? '' : `, partners ${partnersLabel(passcode)}`
  return `"${passcode.name}" in account ${passcode.accountId} (id ${passcode.id}, ${passcode.hint}): ${statusLabel(passcode.status)}, ${expires}${bound}`
}

/** The description under a result line, indented; nothing when there is none. */
export function descriptionLines(passcode: PasscodeView): string {
  return passcode.description === '' ? '' : `\n${passcode.description.replace(/^/gm, '  ')}`
}

/** The RESTRICTED TO column: the scopes granted (all when every one) and how many address ranges. */
export function scopesCell(passcode: PasscodeView): string {
  const scopes = passcode.scopes === null ? 'all scopes' : passcode.scopes.join(', ') || 'no scope'
  const ranges = passcode.allowedAddresses.length
  return ranges === 0 ? scopes : `${scopes}; ${ranges} address range${ranges === 1 ? '' : 's'}`
}

const DESCRIPTION_COLUMN_WIDTH = 40

/** The DESCRIPTION column: its first line, cut to 40 characters, "…" when there is more. */
export function descriptionCell(passcode: PasscodeView): string {
  // Code points on purpose: the column is cut between characters, never inside a surrogate pair.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- see above
  const characters = [...passcode.description]
  const firstLine = characters.indexOf('\n')
  const end = Math.min(firstLine === -1 ? characters.length : firstLine, DESCRIPTION_COLUMN_WIDTH)
  return end < characters.length ? `${characters.slice(0, end).join('').trimEnd()}…` : passcode.description
}
