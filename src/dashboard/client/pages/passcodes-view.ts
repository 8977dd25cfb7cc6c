// What the Passcodes page's rows and forms share of the page (a type only).
import type { RowFocus } from '../focus'
import type { Accepted, DeclaredScope } from '../wire'

/** The page as its rows and forms see it. */
export interface PasscodesView {
  /** Which passcodes the account accepts. */
  readonly accepted: Accepted
  /** The whitelisted partners, for the binding checkboxes. */
  readonly partnerNames: readonly string[]
  /** The host's declared scopes (SPEC §5.48), for the forms' Scopes checkboxes; empty when it declares none. */
  readonly scopes: readonly DeclaredScope[]
  /** The table's column count, for a row form or panel that spans it. */
  readonly columns: number
  /** Loads the list again; then the focus goes to `focus`'s row (or the next one), and `message` is said. */
  reload(focus?: RowFocus, message?: string): Promise<void>
  /** Shows the list as last loaded (a row form gone), on the page of `focus`'s row, and focuses it; says `message`. */
  show(focus?: RowFocus, message?: string): void
}
