import type { AccountPasscodePatch } from '../../ports/passcode-store'
import { orNull, sqlType, type InputOf, type Placeholders, type SqlType } from './named-statement'

/** A column an insert sets, and the SQL type of its input. */
interface InsertColumn {
  readonly column: string
  readonly type: SqlType<unknown>
}
const column = <T>(name: string, type: SqlType<T>) => ({ column: name, type }) as const

/** The inputs of an insert's table of columns: a SQL type per input name. */
type InputsOfColumns<T extends Readonly<Record<string, InsertColumn>>> = { readonly [K in keyof T]: T[K]['type'] }
const inputsOf = <T extends Readonly<Record<string, InsertColumn>>>(columns: T): InputsOfColumns<T> =>
  Object.fromEntries(Object.entries(columns).map(([name, { type }]) => [name, type])) as InputsOfColumns<T>
const columnsOf = (columns: Readonly<Record<string, InsertColumn>>): string =>
  Object.values(columns)
    .map(({ column }) => column)
    .join(', ')
/** The placeholders of an insert's columns, in their order. */
const valuesOf = <T extends Readonly<Record<string, InsertColumn>>>(columns: T, $: Placeholders<InputsOfColumns<T>>): string =>
  (Object.keys(columns) as (keyof T)[]).map((name) => $[name]).join(', ')

/**
 * The columns of an account passcode's insert, each with its input's name and SQL type
 * (`accountPasscodeInput`, rows.ts, gives the values): the one place the insert learns
 * of a new column; its column list and VALUES follow from it.
 */
const ACCOUNT_INSERT = {
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
  // Restricted passcodes (SPEC §5.48, §5.49, §5.51; version 14)
  scopes: column('scopes', orNull(sqlType.textArray)),
  allowedAddresses: column('allowed_addresses', sqlType.textArray),
  metadata: column('metadata', orNull(sqlType.text)),
  tags: column('tags', sqlType.textArray),
  // Limits and credits (SPEC §5.50; version 15): each setting one jsonb column, NULL for none.
  rateLimit: column('rate_limit', orNull(sqlType.jsonb)),
  credits: column('credits', orNull(sqlType.jsonb)),
} as const

/** The inputs of an account passcode's insert ({@link ACCOUNT_INSERT}), named as the record names its fields. */
export const INSERT_ACCOUNT_INPUTS = inputsOf(ACCOUNT_INSERT)

/** The columns of an account passcode's row that `toAccountPasscode` reads. */
export const ACCOUNT_COLUMNS = `${columnsOf(ACCOUNT_INSERT)}, previous_hash, previous_hash_ends_at, previous_pepper_id, last_used_at, last_used_partner`

/**
 * The columns of a user passcode's grant, as {@link ACCOUNT_INSERT} (`userPasscodeInput`,
 * rows.ts): the insert sets them all, a grant that replaces a revoked or expired
 * passcode all but the user's key.
 */
const USER_INSERT = {
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
  // Restricted passcodes (SPEC §5.48, §5.49; version 14)
  scopes: column('scopes', orNull(sqlType.textArray)),
  allowedAddresses: column('allowed_addresses', sqlType.textArray),
  // Limits and credits (SPEC §5.50; version 15)
  rateLimit: column('rate_limit', orNull(sqlType.jsonb)),
  credits: column('credits', orNull(sqlType.jsonb)),
} as const

/** The inputs of a user passcode's grant ({@link USER_INSERT}), named as the record names its fields. */
export const GRANT_USER_INPUTS = inputsOf(USER_INSERT)

export const USER_COLUMNS = `${columnsOf(USER_INSERT)}, last_used_at, last_used_partner`

const LEAK_COLUMNS = 'id, account_id, kind, key, reported_at, url, source, action, name, hint, notified_at'

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
type PatchField = Exclude<keyof AccountPasscodePatch, 'updatedAt'>

const copied = (value: readonly string[] | null): readonly string[] | null => (value === null ? null : [...value])
const asJson = (value: unknown): string | null => (value === null ? null : JSON.stringify(value))

/**
 * The fields of an account passcode's edit (`AccountPasscodePatch`), each with its
 * column: the one place an edit learns of a new field. A field of the patch without its
 * line here does not compile; its SET line, its two inputs (`<field>` and
 * `<field>Given`) and their values all follow from the line.
 */
const PATCH_COLUMNS: { readonly [Field in PatchField]-?: PatchColumn<Exclude<AccountPasscodePatch[Field], undefined>> } = {
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

const patchFields = Object.keys(PATCH_COLUMNS) as PatchField[]

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

/**
 * An account passcode's patch, the SET of `UPDATE account_passcodes AS p`, from the
 * placeholders of {@link EDIT_INPUTS}: an edit with or without its audit record.
 */
export const accountPatch = ($: Placeholders<EditInputs>): string =>
  [
    ...patchFields.map((field) => {
      const { column } = PATCH_COLUMNS[field]
      return `${column} = CASE WHEN ${$[`${field}Given`]} THEN ${$[field]} ELSE p.${column} END`
    }),
    `updated_at = ${$.updatedAt}`,
  ].join(',\n        ')

/**
 * The CTE that closes an account passcode's open leak mark (SPEC §5.42) when the edit
 * of the `from` CTE (which returns `account_id` and `id`) enables it: an admin acted.
 * Part of the edit's statement, with or without its record.
 */
export const closeLeakOnEnable = (s: string, from: string, $: Placeholders<EditInputs>): string => `leak_closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM ${from} c
        WHERE m.account_id = c.account_id AND m.kind = 'account' AND m.key = c.id AND m.open AND ${$.disabledAtGiven} AND ${$.disabledAt} IS NULL
        RETURNING 1
      )`

/** A CTE that closes the open leak mark of the user passcode `changed` granted anew or reset (SPEC §5.42). */
const closeUserLeak = (s: string): string => `closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM changed c
        WHERE m.account_id = c.account_id AND m.kind = 'user' AND m.key = c.user_id AND m.open
        RETURNING 1
      )`

/** The inputs of an account passcode's rotation ({@link rotateChange}), as `rotateAccountPasscode`'s arguments. */
export const ROTATE_INPUTS = {
  accountId: sqlType.text,
  passcodeId: sqlType.text,
  hash: sqlType.text,
  hint: sqlType.text,
  previousHashEndsAt: orNull(sqlType.bigint),
  updatedAt: sqlType.bigint,
  pepperId: orNull(sqlType.text),
} as const

/**
 * An account passcode's rotation as CTEs (the placeholders of {@link ROTATE_INPUTS}),
 * with or without its audit record: `prior`
 * locks the row and reads the overlap end the rotation replaces, so a concurrent
 * rotation is waited for, never read before it, and whether the passcode has an open
 * leak mark; `changed` rotates it (in SET, `hash` is the value before the update: the
 * current hash becomes the previous one, unless it leaked: a leaked value gets no
 * overlap, SPEC §5.45) and returns the row with that end (`prior_ends`, for its
 * record); `closed` closes its open leak mark (SPEC §5.42).
 */
export const rotateChange = (s: string, $: Placeholders<typeof ROTATE_INPUTS>): string => `prior AS (
        SELECT previous_hash_ends_at AS prior_ends,
          EXISTS (
            SELECT 1 FROM ${s}.leak_marks m WHERE m.account_id = ${$.accountId} AND m.kind = 'account' AND m.key = ${$.passcodeId} AND m.open
          ) AS leaked
        FROM ${s}.account_passcodes
        WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}
        FOR NO KEY UPDATE
      ), changed AS (
        UPDATE ${s}.account_passcodes SET
          previous_hash = CASE WHEN ${$.previousHashEndsAt} IS NULL OR prior.leaked THEN NULL ELSE hash END,
          previous_hash_ends_at = CASE WHEN prior.leaked THEN NULL ELSE ${$.previousHashEndsAt} END,
          previous_pepper_id = CASE WHEN ${$.previousHashEndsAt} IS NULL OR prior.leaked THEN NULL ELSE pepper_id END,
          hash = ${$.hash},
          hint = ${$.hint},
          updated_at = ${$.updatedAt},
          pepper_id = ${$.pepperId}
        FROM prior
        WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}
        RETURNING ${ACCOUNT_COLUMNS}, prior.prior_ends
      ), closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM changed c
        WHERE m.account_id = c.account_id AND m.kind = 'account' AND m.key = c.id AND m.open
        RETURNING 1
      )`

// The account branch of the lookup, in the column order the user branch repeats.
/** The inputs of an account passcode's delete ({@link deleteAccountPasscodeChange}). */
export const DELETE_INPUTS = { accountId: sqlType.text, passcodeId: sqlType.text } as const

/**
 * An account passcode's delete as CTEs (the placeholders of {@link DELETE_INPUTS}):
 * `changed` deletes it and returns the row, `closed` closes its open leak mark (SPEC §5.42).
 */
export const deleteAccountPasscodeChange = (s: string, $: Placeholders<typeof DELETE_INPUTS>): string => `changed AS (
        DELETE FROM ${s}.account_passcodes WHERE account_id = ${$.accountId} AND id = ${$.passcodeId} RETURNING ${ACCOUNT_COLUMNS}
      ), closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM changed c
        WHERE m.account_id = c.account_id AND m.kind = 'account' AND m.key = c.id AND m.open
        RETURNING 1
      )`

/** A create's inputs: the passcode's ({@link INSERT_ACCOUNT_INPUTS}) and the account's cap. */
export const CREATE_ACCOUNT_INPUTS = { ...INSERT_ACCOUNT_INPUTS, maxPerAccount: sqlType.integer } as const

/**
 * An account passcode's create as CTEs (the placeholders of {@link CREATE_ACCOUNT_INPUTS}):
 * `counts` reads the account's passcodes (`total`) and those of the same name key
 * (`same_name`); `changed` inserts the row only when no passcode has its name and the
 * account is below its cap, returning the row. Exact only under the account's row lock
 * taken by an earlier statement (account-lock.ts): a statement's snapshot is taken when
 * it starts, so a count in the statement that waited for the lock would miss the
 * creates committed while it waited.
 */
export const createAccountPasscodeChange = (s: string, $: Placeholders<typeof CREATE_ACCOUNT_INPUTS>): string => `counts AS (
      SELECT count(*) AS total, count(*) FILTER (WHERE name_key = ${$.nameKey}) AS same_name
      FROM ${s}.account_passcodes WHERE account_id = ${$.accountId}
      ), changed AS (
      INSERT INTO ${s}.account_passcodes (${columnsOf(ACCOUNT_INSERT)})
      SELECT ${valuesOf(ACCOUNT_INSERT, $)} FROM counts
      WHERE counts.same_name = 0 AND counts.total < ${$.maxPerAccount}
      RETURNING ${ACCOUNT_COLUMNS}
      )`

/**
 * A user passcode's first grant (the placeholders of {@link GRANT_USER_INPUTS}) as CTEs:
 * `changed` inserts it (no row when a concurrent grant inserted first), `closed` closes
 * the user's open leak mark (SPEC §5.42).
 */
export const insertUserPasscodeChange = (s: string, $: Placeholders<typeof GRANT_USER_INPUTS>): string => `changed AS (
      INSERT INTO ${s}.user_passcodes (${columnsOf(USER_INSERT)})
      VALUES (${valuesOf(USER_INSERT, $)})
      ON CONFLICT (account_id, user_id) DO NOTHING
      RETURNING ${USER_COLUMNS}
      ), ${closeUserLeak(s)}`

/** A grant that replaces a revoked or expired user passcode, as {@link insertUserPasscodeChange} (the same inputs). */
export const replaceUserPasscodeChange = (s: string, $: Placeholders<typeof GRANT_USER_INPUTS>): string => `changed AS (
      UPDATE ${s}.user_passcodes SET
        ${(Object.keys(USER_INSERT) as (keyof typeof USER_INSERT)[])
          .filter((name) => name !== 'accountId' && name !== 'userId')
          .map((name) => `${USER_INSERT[name].column} = ${$[name]}`)
          .join(', ')},
        last_used_at = NULL, last_used_partner = NULL
      WHERE account_id = ${$.accountId} AND user_id = ${$.userId}
      RETURNING ${USER_COLUMNS}
      ), ${closeUserLeak(s)}`

/** The inputs of a user passcode's revoke ({@link revokeUserPasscodeChange}). */
export const REVOKE_INPUTS = { accountId: sqlType.text, userId: sqlType.text, revokedAt: sqlType.bigint } as const

/** A user passcode's revoke as a CTE `changed` (the placeholders of {@link REVOKE_INPUTS}), returning the row; none when it was revoked already. */
export const revokeUserPasscodeChange = (s: string, $: Placeholders<typeof REVOKE_INPUTS>): string => `changed AS (
      UPDATE ${s}.user_passcodes SET revoked_at = ${$.revokedAt}
      WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS NULL
      RETURNING ${USER_COLUMNS}
      )`

/** The inputs of a user passcode's reset ({@link resetUserPasscodeChange}): the user and the new value's fields. */
export const RESET_INPUTS = {
  accountId: sqlType.text,
  userId: sqlType.text,
  hash: sqlType.text,
  ciphertext: sqlType.text,
  hint: sqlType.text,
  grantedAt: sqlType.bigint,
  expiresAt: sqlType.bigint,
  pepperId: orNull(sqlType.text),
} as const

/**
 * A user passcode's reset (the placeholders of {@link RESET_INPUTS}) as CTEs:
 * `prior` locks the live row and reads the expiry the reset replaces (for its audit
 * record), `changed` resets it and returns the row with `prior_expires_at`, `closed`
 * closes the user's open leak mark (SPEC §5.42).
 */
export const resetUserPasscodeChange = (s: string, $: Placeholders<typeof RESET_INPUTS>): string => `prior AS (
        SELECT expires_at AS prior_expires_at FROM ${s}.user_passcodes
        WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS NULL
        FOR NO KEY UPDATE
      ), changed AS (
      UPDATE ${s}.user_passcodes SET
        hash = ${$.hash}, ciphertext = ${$.ciphertext}, hint = ${$.hint}, granted_at = ${$.grantedAt}, expires_at = ${$.expiresAt},
        pepper_id = ${$.pepperId}
      FROM prior
      WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS NULL
      RETURNING ${USER_COLUMNS}, prior.prior_expires_at
      ), ${closeUserLeak(s)}`

/** The inputs of a change of the account's accepted passcodes ({@link setAcceptedPasscodesChange}). */
export const SET_ACCEPTED_INPUTS = { accountId: sqlType.text, accepted: sqlType.text } as const

/**
 * A change of the account's accepted passcodes (the placeholders of
 * {@link SET_ACCEPTED_INPUTS}; its row exists: `ensureAccount` first) as CTEs, as
 * `setAcceptedPasscodes` makes it: `prior`
 * locks the row and reads the setting it replaces, `changed` sets it and returns
 * `prior_accepted` and `accepted_passcodes`.
 */
export const setAcceptedPasscodesChange = (s: string, $: Placeholders<typeof SET_ACCEPTED_INPUTS>): string => `prior AS (
        SELECT accepted_passcodes AS prior_accepted FROM ${s}.accounts WHERE account_id = ${$.accountId} FOR NO KEY UPDATE
      ), changed AS (
      UPDATE ${s}.accounts SET accepted_passcodes = ${$.accepted} FROM prior
      WHERE account_id = ${$.accountId}
      RETURNING prior.prior_accepted, accepted_passcodes
      )`

/** The inputs of the notifier's completion of a claim ({@link completeNotificationChange}): the claim's key and when it was sent. */
export const NOTIFICATION_SENT_INPUTS = {
  passcodeId: sqlType.text,
  kind: sqlType.text,
  expiresAt: sqlType.bigint,
  token: sqlType.text,
  sentAt: sqlType.bigint,
} as const

/**
 * The notifier's completion of a claim as CTEs (the placeholders of
 * {@link NOTIFICATION_SENT_INPUTS}): `passcode` locks the passcode's row, `sent` marks
 * the claim sent (a row when the claim held), `marked` records on the passcode which
 * expiry it was sent for. Its result is `SELECT passcode_id FROM sent`; the audited
 * forms (audit-statements.ts) append the record too.
 */
export const completeNotificationChange = (s: string, $: Placeholders<typeof NOTIFICATION_SENT_INPUTS>): string => `passcode AS (
        SELECT id FROM ${s}.account_passcodes WHERE id = ${$.passcodeId} FOR NO KEY UPDATE
      ), sent AS (
        UPDATE ${s}.notifications SET sent_at = ${$.sentAt}, token = NULL
        WHERE passcode_id = (SELECT id FROM passcode) AND kind = ${$.kind} AND expires_at = ${$.expiresAt}
          AND token = ${$.token} AND sent_at IS NULL
        RETURNING passcode_id, kind, expires_at
      ), marked AS (
        UPDATE ${s}.account_passcodes p SET
          soon_sent_for = CASE WHEN s.kind = 'expiring_soon' THEN s.expires_at ELSE p.soon_sent_for END,
          expired_sent_for = CASE WHEN s.kind = 'expired' THEN s.expires_at ELSE p.expired_sent_for END
        FROM sent s
        WHERE p.id = s.passcode_id
        RETURNING 1
      )`

/** The inputs of a leak notice marked sent ({@link completeLeakNoticeChange}): the mark, the claim's token, when. */
export const LEAK_NOTICE_SENT_INPUTS = { id: sqlType.text, token: sqlType.text, sentAt: sqlType.bigint } as const

/** A leak notice marked sent (the placeholders of {@link LEAK_NOTICE_SENT_INPUTS}), as a CTE `sent` (a row when the claim held). */
export const completeLeakNoticeChange = (s: string, $: Placeholders<typeof LEAK_NOTICE_SENT_INPUTS>): string => `sent AS (
        UPDATE ${s}.leak_marks SET notified_at = ${$.sentAt}, token = NULL
        WHERE id = ${$.id} AND token = ${$.token} AND notified_at IS NULL
        RETURNING id
      )`

/** The account whose audit chain head a change locks when its other inputs do not name it (`…AndLock`, audit-statements.ts). */
export const ACCOUNT_INPUT = { accountId: sqlType.text } as const

/** The inputs of a leak report's response ({@link leakChanges}), as `LeakReport` names them. */
export const LEAK_INPUTS = {
  accountId: sqlType.text,
  key: sqlType.text,
  hash: sqlType.text,
  id: sqlType.text,
  at: sqlType.bigint,
  url: orNull(sqlType.text),
  source: sqlType.text,
  token: sqlType.text,
  claimedUntil: sqlType.bigint,
} as const

/**
 * The three responses to a leak report (SPEC §5.42) as CTEs, each ending in `changed`
 * (its mark; no row: nothing acted), with or without its audit record (the placeholders of {@link LEAK_INPUTS}). Each
 * acts only while the credential holds the hash that matched; the account passcode's
 * row is locked first, so concurrent reports take turns, and the open-mark index
 * decides: the second finds the first's mark and inserts none, and then changes nothing
 * (the disable is conditional on the mark it inserted). A delete leaves nothing to mark:
 * its mark is closed at once and its email still goes. A revoke is conditional itself
 * (revoked_at IS NULL): of concurrent reports one changes the row.
 */
export const leakChanges = (s: string) => ({
  disable: ($: Placeholders<typeof LEAK_INPUTS>): string => `target AS (
        SELECT id, name, hint FROM ${s}.account_passcodes
        WHERE account_id = ${$.accountId} AND id = ${$.key} AND (hash = ${$.hash} OR previous_hash = ${$.hash})
        FOR NO KEY UPDATE
      ), changed AS (
        INSERT INTO ${s}.leak_marks (id, account_id, kind, key, reported_at, url, source, action, name, hint, open, token, claimed_until)
        SELECT ${$.id}, ${$.accountId}, 'account', t.id, ${$.at}, ${$.url}, ${$.source}, 'disabled', t.name, t.hint, true, ${$.token}, ${$.claimedUntil}
        FROM target t
        ON CONFLICT (account_id, kind, key) WHERE open DO NOTHING
        RETURNING ${LEAK_COLUMNS}
      ), disabled AS (
        UPDATE ${s}.account_passcodes p SET disabled_at = ${$.at}, updated_at = ${$.at}
        FROM changed m WHERE p.account_id = ${$.accountId} AND p.id = m.key AND p.disabled_at IS NULL
        RETURNING 1
      )`,
  delete: ($: Placeholders<typeof LEAK_INPUTS>): string => `gone AS (
        DELETE FROM ${s}.account_passcodes p
        WHERE account_id = ${$.accountId} AND id = ${$.key} AND (hash = ${$.hash} OR previous_hash = ${$.hash})
          AND NOT EXISTS (SELECT 1 FROM ${s}.leak_marks m WHERE m.account_id = ${$.accountId} AND m.kind = 'account' AND m.key = ${$.key} AND m.open)
        RETURNING id, name, hint
      ), changed AS (
        INSERT INTO ${s}.leak_marks (id, account_id, kind, key, reported_at, url, source, action, name, hint, open, token, claimed_until)
        SELECT ${$.id}, ${$.accountId}, 'account', g.id, ${$.at}, ${$.url}, ${$.source}, 'deleted', g.name, g.hint, false, ${$.token}, ${$.claimedUntil}
        FROM gone g
        RETURNING ${LEAK_COLUMNS}
      )`,
  revoke: ($: Placeholders<typeof LEAK_INPUTS>): string => `revoked AS (
        UPDATE ${s}.user_passcodes SET revoked_at = ${$.at}
        WHERE account_id = ${$.accountId} AND user_id = ${$.key} AND hash = ${$.hash} AND revoked_at IS NULL
        RETURNING user_id
      ), changed AS (
        INSERT INTO ${s}.leak_marks (id, account_id, kind, key, reported_at, url, source, action, name, hint, open, token, claimed_until)
        SELECT ${$.id}, ${$.accountId}, 'user', r.user_id, ${$.at}, ${$.url}, ${$.source}, 'revoked', NULL, NULL, true, ${$.token}, ${$.claimedUntil}
        FROM revoked r
        ON CONFLICT (account_id, kind, key) WHERE open DO UPDATE SET
          reported_at = excluded.reported_at, url = excluded.url, source = excluded.source, action = excluded.action,
          notified_at = NULL, token = excluded.token, claimed_until = excluded.claimed_until
        RETURNING ${LEAK_COLUMNS}
      )`,
})

/** What each of {@link leakChanges} answers, from `changed`: the mark, and whether a disable changed the passcode (`disabled_now`). */
export const LEAK_RESULTS = {
  disable: `${LEAK_COLUMNS}, EXISTS (SELECT FROM disabled) AS disabled_now`,
  delete: LEAK_COLUMNS,
  revoke: LEAK_COLUMNS,
} as const

const ACCOUNT_BRANCH = `p.account_id, p.id, NULL::text AS user_id, p.name, p.name_key, p.hash, p.hint,
               p.expiry_days, p.created_at, p.updated_at, p.expires_at, p.partners, p.previous_hash, p.previous_hash_ends_at,
               p.last_used_at, p.last_used_partner, NULL::text AS ciphertext,
               NULL::text AS validity_type, NULL::integer AS validity_days, NULL::bigint AS granted_at, NULL::bigint AS revoked_at,
               p.pepper_id, p.disabled_at, p.description, p.scopes, p.allowed_addresses, p.metadata, p.tags, p.rate_limit, p.credits`

/** The verification lookup of the key `key` (a parameter or a column), one row or none: see `findCredentialByHash` below. */
const credentialLookup = (s: string, key: string): string => `
      SELECT c.*, coalesce(a.accepted_passcodes, 'account') AS accepted_passcodes
      FROM (
        SELECT 'account' AS kind, ${ACCOUNT_BRANCH}
        FROM ${s}.account_passcodes p WHERE p.hash = ${key}
        UNION ALL
        SELECT 'account', ${ACCOUNT_BRANCH}
        FROM ${s}.account_passcodes p WHERE p.previous_hash = ${key}
        UNION ALL
        SELECT 'user', u.account_id, NULL, u.user_id, NULL, NULL, u.hash, u.hint,
               NULL, NULL, NULL, u.expires_at, NULL, NULL, NULL, u.last_used_at, u.last_used_partner, u.ciphertext,
               u.validity_type, u.validity_days, u.granted_at, u.revoked_at, u.pepper_id, NULL, NULL,
               u.scopes, u.allowed_addresses, NULL, NULL, u.rate_limit, u.credits
        FROM ${s}.user_passcodes u WHERE u.hash = ${key}
      ) AS c
      LEFT JOIN ${s}.accounts a ON a.account_id = c.account_id
      LIMIT 1`

/**
 * Every statement of the store, for one schema: the same SQL for `pg` and PGlite.
 * Casts on parameters give both drivers the types without a round trip to ask.
 */
export function statements(s: string) {
  return {
    // The verification lookup: one round trip, one unique-index probe per branch (an
    // account passcode's current hash, its previous hash during a rotation overlap,
    // a user passcode's hash), all in the statement's one snapshot.
    findCredentialByHash: credentialLookup(s, '$1::text'),
    // The same lookup for several keys ($1, a text array: one value's hashes under each
    // pepper, SPEC §5.34) in one statement, so one snapshot: a row that another instance
    // re-hashes from one of the keys to another is found under one of them, never missed
    // between two statements. A row per key that matched: `n`, its 1-based position in
    // the array, then the columns above.
    findCredentialsByHashes: `
      SELECT t.n, m.*
      FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)
      CROSS JOIN LATERAL (${credentialLookup(s, 't.k')}) AS m`,
    // The same lookup through the schema's function (version 10, which repeats the
    // statement above: a change to it replaces the function in a new version), for
    // connections that cannot keep a named statement: the server plans only this call.
    // One text column, the row as JSON, or NULL when there is none.
    callFindCredentialByHash: `SELECT ${s}.find_credential_by_hash($1::text) AS json`,
    // The same function for several keys in one statement (a text array): one row per
    // key, `n` its 1-based position in the array, `json` as above. Concurrent cache misses
    // share it (pgPreparedLookup: named on a direct connection, unnamed through a transaction pooler),
    // and it carries one value's hashes under each pepper. The function is STABLE, so each of
    // its calls reads the snapshot of this statement: every key, one snapshot.
    callFindCredentialsByHashes: `SELECT t.n, ${s}.find_credential_by_hash(t.k) AS json FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)`,

    ensureAccount: `INSERT INTO ${s}.accounts (account_id) VALUES ($1::text) ON CONFLICT (account_id) DO NOTHING`,
    // One statement for a whole batch, over both tables; a row is written only when the
    // batch's instant is later than the stored one, and a deleted passcode matches no row.
    recordUsage: `
      WITH entries AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS e(kind, account_id, key, at, partner)
      ), accounts AS (
        UPDATE ${s}.account_passcodes p SET last_used_at = e.at, last_used_partner = e.partner
        FROM entries e
        WHERE e.kind = 'account' AND p.id = e.key AND p.account_id = e.account_id
          AND (p.last_used_at IS NULL OR p.last_used_at < e.at)
        RETURNING 1
      ), users AS (
        UPDATE ${s}.user_passcodes u SET last_used_at = e.at, last_used_partner = e.partner
        FROM entries e
        WHERE e.kind = 'user' AND u.account_id = e.account_id AND u.user_id = e.key
          AND (u.last_used_at IS NULL OR u.last_used_at < e.at)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM users) AS written`,
    // Usage over time (SPEC §5.41), apart from recordUsage: one statement adds a whole
    // batch to the stored counts, so the counts of many instances add up. Rows come
    // sorted by key, so two instances' flushes lock shared rows in the same order.
    recordUsageCounts: `
      INSERT INTO ${s}.usage_days AS u (account_id, kind, key, day, partner, outcome, n)
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::text[], $6::text[], $7::bigint[])
      ON CONFLICT (account_id, kind, key, day, partner, outcome) DO UPDATE SET n = u.n + excluded.n`,
    listUsageCounts: `
      SELECT to_char(day, 'YYYY-MM-DD') AS day, partner, outcome, n FROM ${s}.usage_days
      WHERE account_id = $1::text AND kind = $2::text AND key = $3::text AND day >= $4::date
      ORDER BY day, partner COLLATE "C", outcome COLLATE "C"`,
    // Bounded: at most $2 rows per statement, found by the day index.
    pruneUsageCounts: `
      WITH gone AS (
        DELETE FROM ${s}.usage_days WHERE ctid IN (SELECT ctid FROM ${s}.usage_days WHERE day < $1::date LIMIT $2::integer)
        RETURNING 1
      )
      SELECT count(*) AS deleted FROM gone`,
    getAccountPasscode: `SELECT ${ACCOUNT_COLUMNS} FROM ${s}.account_passcodes WHERE account_id = $1::text AND id = $2::text`,
    listAccountPasscodes: `
      SELECT ${ACCOUNT_COLUMNS} FROM ${s}.account_passcodes WHERE account_id = $1::text ORDER BY created_at, id COLLATE "C"`,

    lockUserPasscode: `
      SELECT revoked_at, expires_at FROM ${s}.user_passcodes WHERE account_id = $1::text AND user_id = $2::text FOR UPDATE`,
    getUserPasscode: `SELECT ${USER_COLUMNS} FROM ${s}.user_passcodes WHERE account_id = $1::text AND user_id = $2::text`,
    listUserPasscodes: `
      SELECT ${USER_COLUMNS} FROM ${s}.user_passcodes WHERE account_id = $1::text ORDER BY user_id COLLATE "C"`,

    getAcceptedPasscodes: `SELECT accepted_passcodes FROM ${s}.accounts WHERE account_id = $1::text`,

    // SPEC §5.28: only while the hash is still the one that matched.
    rehashAccountPasscode: `
      UPDATE ${s}.account_passcodes SET hash = $4::text, pepper_id = $5::text
      WHERE account_id = $1::text AND id = $2::text AND hash = $3::text`,
    rehashUserPasscode: `
      UPDATE ${s}.user_passcodes SET hash = $4::text, pepper_id = $5::text
      WHERE account_id = $1::text AND user_id = $2::text AND hash = $3::text`,
    // $1 now: a rotation's previous hash counts under its own pepper while its overlap
    // lasts (SPEC §5.47), found through the previous hash's index (few rows have one).
    countHashesByPepper: `
      SELECT pepper_id, count(*)::integer AS hashes FROM (
        SELECT pepper_id FROM ${s}.account_passcodes
        UNION ALL
        SELECT previous_pepper_id FROM ${s}.account_passcodes WHERE previous_hash IS NOT NULL AND previous_hash_ends_at > $1::bigint
        UNION ALL
        SELECT pepper_id FROM ${s}.user_passcodes
      ) AS h GROUP BY pepper_id`,
    // Due = dueNotification(): expired once now >= expires_at, else expiring soon inside
    // the window; a disabled passcode gets no email (SPEC §5.38). A passcode's email is
    // due while the instant it was sent for (soon_sent_for, expired_sent_for) differs
    // from expires_at, so each branch reads only the due end of a partial index (the predicates repeat the indexes' own, word
    // for word): the cost follows what is due, not what is stored. Each branch locks up
    // to `limit` rows with SKIP LOCKED, so that concurrent runners split the work, and
    // passes over notifications under a live lease; the upsert is what makes a claim
    // exclusive: it re-checks the notification row's latest version, so a row sent or
    // under a live lease is never taken, and an expired lease is taken over. A due row
    // whose email the notifications table holds as sent already (written before
    // version 7, or by an earlier release) gets its column filled instead of a claim.
    // Every candidate comes back, `claimed` or not: one not claimed was settled, or taken
    // by a runner that committed after this statement's snapshot (the upsert saw its
    // claim, the snapshot did not), and the caller runs the statement again for the rest.
    claimNotifications: `
      WITH first_email AS (
        SELECT p.id, p.account_id, p.name, p.hint, p.expires_at, 'expiring_soon'::text AS kind
        FROM ${s}.account_passcodes p
        WHERE p.soon_sent_for IS DISTINCT FROM p.expires_at AND p.expired_sent_for IS DISTINCT FROM p.expires_at
          AND p.disabled_at IS NULL
          AND p.expires_at > $1::bigint AND p.expires_at <= $1::bigint + $2::bigint
          AND NOT EXISTS (
            SELECT 1 FROM ${s}.notifications n
            WHERE n.passcode_id = p.id AND n.kind = 'expiring_soon' AND n.expires_at = p.expires_at
              AND n.sent_at IS NULL AND n.claimed_until > $1::bigint
          )
        ORDER BY p.expires_at, p.id
        LIMIT $3::integer
        FOR NO KEY UPDATE OF p SKIP LOCKED
      ), expired_email AS (
        SELECT p.id, p.account_id, p.name, p.hint, p.expires_at, 'expired'::text AS kind
        FROM ${s}.account_passcodes p
        WHERE p.expired_sent_for IS DISTINCT FROM p.expires_at
          AND p.disabled_at IS NULL
          AND p.expires_at <= $1::bigint
          AND NOT EXISTS (
            SELECT 1 FROM ${s}.notifications n
            WHERE n.passcode_id = p.id AND n.kind = 'expired' AND n.expires_at = p.expires_at
              AND n.sent_at IS NULL AND n.claimed_until > $1::bigint
          )
        ORDER BY p.expires_at, p.id
        LIMIT $3::integer
        FOR NO KEY UPDATE OF p SKIP LOCKED
      ), candidates AS (
        SELECT c.*, EXISTS (
          SELECT 1 FROM ${s}.notifications n
          WHERE n.passcode_id = c.id AND n.kind = c.kind AND n.expires_at = c.expires_at AND n.sent_at IS NOT NULL
        ) AS sent
        FROM (SELECT * FROM expired_email UNION ALL SELECT * FROM first_email) AS c
        ORDER BY c.expires_at, c.id
        LIMIT $3::integer
      ), settled AS (
        UPDATE ${s}.account_passcodes p SET
          soon_sent_for = CASE WHEN c.kind = 'expiring_soon' THEN c.expires_at ELSE p.soon_sent_for END,
          expired_sent_for = CASE WHEN c.kind = 'expired' THEN c.expires_at ELSE p.expired_sent_for END
        FROM candidates c
        WHERE c.sent AND p.id = c.id
        RETURNING 1
      ), claimed AS (
        INSERT INTO ${s}.notifications AS n (passcode_id, kind, expires_at, token, claimed_until, sent_at)
        SELECT id, kind, expires_at, $4::text, $1::bigint + $5::bigint, NULL FROM candidates WHERE NOT sent
        ON CONFLICT (passcode_id, kind, expires_at) DO UPDATE
          SET token = excluded.token, claimed_until = excluded.claimed_until
          WHERE n.sent_at IS NULL AND n.claimed_until <= $1::bigint
        RETURNING n.passcode_id, n.kind, n.expires_at
      )
      SELECT c.id AS passcode_id, c.account_id, c.name, c.hint, c.kind, c.expires_at, claimed.passcode_id IS NOT NULL AS claimed
      FROM candidates c
      LEFT JOIN claimed ON c.id = claimed.passcode_id AND c.kind = claimed.kind AND c.expires_at = claimed.expires_at
      ORDER BY c.expires_at, c.id`,
    releaseNotification: `
      DELETE FROM ${s}.notifications
      WHERE passcode_id = $1::text AND kind = $2::text AND expires_at = $3::bigint AND token = $4::text AND sent_at IS NULL`,

    openLeakMark: `SELECT 1 AS open FROM ${s}.leak_marks WHERE account_id = $1::text AND kind = $2::text AND key = $3::text AND open`,
    listLeakMarks: `
      SELECT ${LEAK_COLUMNS} FROM ${s}.leak_marks WHERE account_id = $1::text AND open ORDER BY reported_at, id COLLATE "C"`,
    // Oldest unsent first, through the partial index; SKIP LOCKED splits them between runners.
    claimLeakNotices: `
      WITH due AS (
        SELECT id FROM ${s}.leak_marks
        WHERE notified_at IS NULL AND claimed_until <= $1::bigint
        ORDER BY reported_at, id
        LIMIT $2::integer
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${s}.leak_marks m SET token = $3::text, claimed_until = $1::bigint + $4::bigint
      FROM due WHERE m.id = due.id
      RETURNING ${LEAK_COLUMNS.replace(/(^|, )/g, '$1m.')}`,
    releaseLeakNotice: `
      UPDATE ${s}.leak_marks SET token = NULL, claimed_until = 0
      WHERE id = $1::text AND token = $2::text AND notified_at IS NULL`,
  }
}

/** The statements of one schema. */
export type Statements = ReturnType<typeof statements>

/** The unique index that enforces name uniqueness; its violation means `duplicate_name`. */
export const NAME_INDEX = 'account_passcodes_name_key'
