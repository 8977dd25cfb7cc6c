/**
 * The column tables of the store's statements: each insert's columns and each edit's
 * fields, with their inputs' names and SQL types. The one module a new column of an
 * account or user passcode joins; the statements' text follows from these tables.
 */
import type { AccountPasscodePatch } from '../../ports/passcode-store'
import { orNull, sqlType, type InputOf, type Placeholders, type SqlType } from './named-statement'

/** A column an insert sets, and the SQL type of its input. */
interface InsertColumn {
  readonly column: string
  readonly type: SqlType<unknown>
}
export const column = <T>(name: string, type: SqlType<T>) => ({ column: name, type }) as const

/** The inputs of an insert's table of columns: a SQL type per input name. */
export type InputsOfColumns<T extends Readonly<Record<string, InsertColumn>>> = { readonly [K in keyof T]: T[K]['type'] }
export const inputsOf = <T extends Readonly<Record<string, InsertColumn>>>(columns: T): InputsOfColumns<T> =>
  Object.fromEntries(Object.entries(columns).map(([name, { type }]) => [name, type])) as InputsOfColumns<T>
export const columnsOf = (columns: Readonly<Record<string, InsertColumn>>): string =>
  Object.values(columns)
    .map(({ column }) => column)
    .join(', ')
/** The placeholders of an insert's columns, in their order. */
export const valuesOf = <T extends Readonly<Record<string, InsertColumn>>>(columns: T, $: Placeholders<InputsOfColumns<T>>): string =>
  (Object.keys(columns) as (keyof T)[]).map((name) => $[name]).join(', ')

/**
 * The restriction columns an account passcode and a user passcode share (SPEC §5.48,
 * §5.49; version 14), in both inserts: a restriction both take joins here once.
 */
const RESTRICTION_COLUMNS = {
  scopes: column('scopes', orNull(sqlType.textArray)),
  allowedAddresses: column('allowed_addresses', sqlType.textArray),
} as const

/**
 * The limit and credit columns an account passcode and a user passcode share (SPEC
 * §5.50; version 15), in both inserts: each setting one jsonb column, NULL for none.
 */
const LIMIT_COLUMNS = {
  rateLimit: column('rate_limit', orNull(sqlType.jsonb)),
  credits: column('credits', orNull(sqlType.jsonb)),
} as const

/**
 * The columns of an account passcode's insert, each with its input's name and SQL type
 * (`accountPasscodeInput`, rows.ts, gives the values): the one place the insert learns
 * of a new column; its column list and VALUES follow from it.
 */
export const ACCOUNT_INSERT = {
  id: column('id', sqlType.text),
  accountId: column('account_id', sqlType.text),
  name: column('name', sqlType.text),
  nameKey: column('name_key', sqlType.text),
  hash: column('hash', sqlType.text),
  hint: column('hint', sqlType.text),
  expiryDays: column('expiry_days', orNull(sqlType.integer)),
  createdAt: column('created_at', sqlType.bigint),
  updatedAt: column('updated_at', sqlType.bigint),
  expiresAt: column('expires_at', orNull(sqlType.bigint)),
  partners: column('partners', orNull(sqlType.textArray)),
  pepperId: column('pepper_id', orNull(sqlType.text)),
  disabledAt: column('disabled_at', orNull(sqlType.bigint)),
  description: column('description', sqlType.text),
  ...RESTRICTION_COLUMNS,
  // An account passcode's own (SPEC §5.51; version 14)
  metadata: column('metadata', orNull(sqlType.text)),
  tags: column('tags', sqlType.textArray),
  ...LIMIT_COLUMNS,
} as const

/** The inputs of an account passcode's insert ({@link ACCOUNT_INSERT}), named as the record names its fields. */
export const INSERT_ACCOUNT_INPUTS = inputsOf(ACCOUNT_INSERT)

/** The columns of an account passcode's row that `toAccountPasscode` reads. */
export const ACCOUNT_COLUMNS = `${columnsOf(ACCOUNT_INSERT)}, previous_hash, previous_hash_ends_at, previous_pepper_id, last_used_at, last_used_partner, value_leaked`

/**
 * The columns of a user passcode's grant, as {@link ACCOUNT_INSERT} (`userPasscodeInput`,
 * rows.ts): the insert sets them all, a grant that replaces a revoked or expired
 * passcode all but the user's key.
 */
export const USER_INSERT = {
  accountId: column('account_id', sqlType.text),
  userId: column('user_id', sqlType.text),
  hash: column('hash', sqlType.text),
  ciphertext: column('ciphertext', sqlType.text),
  hint: column('hint', sqlType.text),
  validityType: column('validity_type', sqlType.text),
  validityDays: column('validity_days', orNull(sqlType.integer)),
  grantedAt: column('granted_at', sqlType.bigint),
  expiresAt: column('expires_at', sqlType.bigint),
  revokedAt: column('revoked_at', orNull(sqlType.bigint)),
  pepperId: column('pepper_id', orNull(sqlType.text)),
  ...RESTRICTION_COLUMNS,
  ...LIMIT_COLUMNS,
} as const

/** The inputs of a user passcode's grant ({@link USER_INSERT}), named as the record names its fields. */
export const GRANT_USER_INPUTS = inputsOf(USER_INSERT)

export const USER_COLUMNS = `${columnsOf(USER_INSERT)}, last_used_at, last_used_partner`

export const LEAK_COLUMNS = 'id, account_id, kind, key, reported_at, url, source, action, name, hint, notified_at'

/**
 * How an edit stores one field of an account passcode's patch: the column it sets, the
 * SQL type of its input, and how the patch's value is stored (arrays copied, JSON as
 * text), `null` included.
 */
interface PatchColumn<Value> {
  readonly column: string
  readonly type: SqlType<unknown>
  readonly stored?: (value: Value) => unknown
}

/** Every field an edit may change but `updatedAt`. */
export type PatchField = Exclude<keyof AccountPasscodePatch, 'updatedAt'>

const copied = (value: readonly string[] | null): readonly string[] | null => (value === null ? null : [...value])
const asJson = (value: unknown): string | null => (value === null ? null : JSON.stringify(value))

/**
 * The fields of an account passcode's edit (`AccountPasscodePatch`), each with its
 * column: the one place an edit learns of a new field. A field of the patch without its
 * line here does not compile; its SET line, its two inputs (`<field>` and
 * `<field>Given`) and their values all follow from the line.
 */
export const PATCH_COLUMNS: { readonly [Field in PatchField]-?: PatchColumn<Exclude<AccountPasscodePatch[Field], undefined>> } = {
  name: { column: 'name', type: sqlType.text },
  nameKey: { column: 'name_key', type: sqlType.text },
  expiry: { column: 'expiry_days', type: sqlType.integer, stored: (expiry) => (expiry === 'forever' ? null : expiry) },
  expiresAt: { column: 'expires_at', type: sqlType.bigint },
  partners: { column: 'partners', type: sqlType.textArray, stored: copied },
  description: { column: 'description', type: sqlType.text },
  disabledAt: { column: 'disabled_at', type: sqlType.bigint },
  // Restricted passcodes (SPEC §5.48, §5.49, §5.51; version 14)
  scopes: { column: 'scopes', type: sqlType.textArray, stored: copied },
  allowedAddresses: { column: 'allowed_addresses', type: sqlType.textArray, stored: copied },
  metadata: { column: 'metadata', type: sqlType.text, stored: asJson },
  tags: { column: 'tags', type: sqlType.textArray, stored: copied },
  // Limits and credits (SPEC §5.50; version 15)
  rateLimit: { column: 'rate_limit', type: sqlType.jsonb, stored: asJson },
  credits: { column: 'credits', type: sqlType.jsonb, stored: asJson },
}

export const patchFields = Object.keys(PATCH_COLUMNS) as PatchField[]

/**
 * The inputs of an account passcode's edit: the passcode, the edit's time, and for each
 * field of {@link PATCH_COLUMNS} its value and whether the patch gives it (`…Given`).
 */
export type EditInputs = {
  readonly accountId: SqlType<string>
  readonly passcodeId: SqlType<string>
  readonly updatedAt: SqlType<number>
} & Readonly<Record<PatchField, SqlType<unknown>>> & { readonly [Field in PatchField as `${Field}Given`]: SqlType<boolean> }

/** The inputs of an account passcode's edit (see {@link EditInputs}). */
export const EDIT_INPUTS = {
  accountId: sqlType.text,
  passcodeId: sqlType.text,
  updatedAt: sqlType.bigint,
  ...Object.fromEntries(
    patchFields.flatMap((field) => [
      [field, orNull(PATCH_COLUMNS[field].type)],
      [`${field}Given`, sqlType.boolean],
    ]),
  ),
} as EditInputs

/** The input of {@link EDIT_INPUTS}' statements for one edit. */
export function editInput(accountId: string, passcodeId: string, patch: AccountPasscodePatch): InputOf<EditInputs> {
  const input: Record<string, unknown> = { accountId, passcodeId, updatedAt: patch.updatedAt }
  for (const field of patchFields) {
    const value = patch[field]
    const stored = PATCH_COLUMNS[field].stored as ((value: unknown) => unknown) | undefined
    input[field] = value === undefined ? null : stored === undefined ? value : stored(value)
    input[`${field}Given`] = value !== undefined
  }
  return input as InputOf<EditInputs>
}
