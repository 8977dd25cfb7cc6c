/** The statements of leak marks: the responses to a report, the marks' reads and their notices (SPEC §5.42). */
import { namedStatement, orNull, sqlType, type Placeholders } from './named-statement'
import { LEAK_COLUMNS } from './statement-columns'

/** The inputs of a leak notice marked sent ({@link completeLeakNoticeChange}): the mark, the claim's token, when. */
export const LEAK_NOTICE_SENT_INPUTS = { id: sqlType.text, token: sqlType.text, sentAt: sqlType.bigint } as const

/** A leak notice marked sent (the placeholders of {@link LEAK_NOTICE_SENT_INPUTS}), as a CTE `sent` (a row when the claim held). */
export const completeLeakNoticeChange = (s: string, $: Placeholders<typeof LEAK_NOTICE_SENT_INPUTS>): string => `sent AS (
        UPDATE ${s}.leak_marks SET notified_at = ${$.sentAt}, token = NULL
        WHERE id = ${$.id} AND token = ${$.token} AND notified_at IS NULL
        RETURNING id
      )`

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
 * (the disable is conditional on the mark it inserted). The disable's `disabled` runs on
 * a passcode disabled already too: it keeps when and its edit time, and marks the current
 * value leaked (`value_leaked`, SPEC §5.45) when the report matched it (`target.is_current`),
 * not the previous value. A delete leaves nothing to mark:
 * its mark is closed at once and its email still goes. A revoke is conditional itself
 * (revoked_at IS NULL): of concurrent reports one changes the row.
 */
export const leakChanges = (s: string) => ({
  disable: ($: Placeholders<typeof LEAK_INPUTS>): string => `target AS (
        SELECT id, name, hint, disabled_at IS NULL AS enabled, hash = ${$.hash} AS is_current FROM ${s}.account_passcodes
        WHERE account_id = ${$.accountId} AND id = ${$.key} AND (hash = ${$.hash} OR previous_hash = ${$.hash})
        FOR NO KEY UPDATE
      ), changed AS (
        INSERT INTO ${s}.leak_marks (id, account_id, kind, key, reported_at, url, source, action, name, hint, open, token, claimed_until)
        SELECT ${$.id}, ${$.accountId}, 'account', t.id, ${$.at}, ${$.url}, ${$.source}, 'disabled', t.name, t.hint, true, ${$.token}, ${$.claimedUntil}
        FROM target t
        ON CONFLICT (account_id, kind, key) WHERE open DO NOTHING
        RETURNING ${LEAK_COLUMNS}
      ), disabled AS (
        UPDATE ${s}.account_passcodes p SET
          disabled_at = CASE WHEN t.enabled THEN ${$.at} ELSE p.disabled_at END,
          updated_at = CASE WHEN t.enabled THEN ${$.at} ELSE p.updated_at END,
          value_leaked = p.value_leaked OR t.is_current
        FROM changed m, target t WHERE p.account_id = ${$.accountId} AND p.id = m.key AND (t.enabled OR t.is_current)
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

/** What each of {@link leakChanges} answers, from `changed`: the mark, and whether a disable disabled the passcode (`disabled_now`: it was enabled). */
export const LEAK_RESULTS = {
  disable: `${LEAK_COLUMNS}, (SELECT enabled FROM target) AS disabled_now`,
  delete: LEAK_COLUMNS,
  revoke: LEAK_COLUMNS,
} as const

/** The leak marks' reads and their notices' claim and release, for one schema (see `statements`). */
export const leakStatements = (s: string) => ({
  openLeakMark: namedStatement(
    { accountId: sqlType.text, kind: sqlType.text, key: sqlType.text },
    ($) => `SELECT 1 AS open FROM ${s}.leak_marks WHERE account_id = ${$.accountId} AND kind = ${$.kind} AND key = ${$.key} AND open`,
  ),
  listLeakMarks: namedStatement(
    { accountId: sqlType.text },
    ($) => `
      SELECT ${LEAK_COLUMNS} FROM ${s}.leak_marks WHERE account_id = ${$.accountId} AND open ORDER BY reported_at, id COLLATE "C"`,
  ),
  // Oldest unsent first, through the partial index; SKIP LOCKED splits them between runners.
  claimLeakNotices: namedStatement(
    { now: sqlType.bigint, limit: sqlType.integer, token: sqlType.text, leaseMs: sqlType.bigint },
    ($) => `
      WITH due AS (
        SELECT id FROM ${s}.leak_marks
        WHERE notified_at IS NULL AND claimed_until <= ${$.now}
        ORDER BY reported_at, id
        LIMIT ${$.limit}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${s}.leak_marks m SET token = ${$.token}, claimed_until = ${$.now} + ${$.leaseMs}
      FROM due WHERE m.id = due.id
      RETURNING ${LEAK_COLUMNS.replace(/(^|, )/g, '$1m.')}`,
  ),
  releaseLeakNotice: namedStatement(
    { id: sqlType.text, token: sqlType.text },
    ($) => `
      UPDATE ${s}.leak_marks SET token = NULL, claimed_until = 0
      WHERE id = ${$.id} AND token = ${$.token} AND notified_at IS NULL`,
  ),
})
