/** The statements of the expiry notifications: their claims, release and completion (SPEC §5.38). */
import { namedStatement, sqlType, type Placeholders } from './named-statement'

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

/** The inputs of a claim of due notifications, as `claimNotifications` names them. */
const CLAIM_INPUTS = {
  now: sqlType.bigint,
  windowMs: sqlType.bigint,
  limit: sqlType.integer,
  token: sqlType.text,
  leaseMs: sqlType.bigint,
} as const

/** The inputs of a claim's release: the claim's key and token, as `NotificationClaim` names them. */
export const RELEASE_INPUTS = { passcodeId: sqlType.text, kind: sqlType.text, expiresAt: sqlType.bigint, token: sqlType.text } as const

/** The notifications' claim and release, for one schema (see `statements`). */
export const notificationStatements = (s: string) => ({
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
  claimNotifications: namedStatement(
    CLAIM_INPUTS,
    ($) => `
      WITH first_email AS (
        SELECT p.id, p.account_id, p.name, p.hint, p.expires_at, 'expiring_soon'::text AS kind
        FROM ${s}.account_passcodes p
        WHERE p.soon_sent_for IS DISTINCT FROM p.expires_at AND p.expired_sent_for IS DISTINCT FROM p.expires_at
          AND p.disabled_at IS NULL
          AND p.expires_at > ${$.now} AND p.expires_at <= ${$.now} + ${$.windowMs}
          AND NOT EXISTS (
            SELECT 1 FROM ${s}.notifications n
            WHERE n.passcode_id = p.id AND n.kind = 'expiring_soon' AND n.expires_at = p.expires_at
              AND n.sent_at IS NULL AND n.claimed_until > ${$.now}
          )
        ORDER BY p.expires_at, p.id
        LIMIT ${$.limit}
        FOR NO KEY UPDATE OF p SKIP LOCKED
      ), expired_email AS (
        SELECT p.id, p.account_id, p.name, p.hint, p.expires_at, 'expired'::text AS kind
        FROM ${s}.account_passcodes p
        WHERE p.expired_sent_for IS DISTINCT FROM p.expires_at
          AND p.disabled_at IS NULL
          AND p.expires_at <= ${$.now}
          AND NOT EXISTS (
            SELECT 1 FROM ${s}.notifications n
            WHERE n.passcode_id = p.id AND n.kind = 'expired' AND n.expires_at = p.expires_at
              AND n.sent_at IS NULL AND n.claimed_until > ${$.now}
          )
        ORDER BY p.expires_at, p.id
        LIMIT ${$.limit}
        FOR NO KEY UPDATE OF p SKIP LOCKED
      ), candidates AS (
        SELECT c.*, EXISTS (
          SELECT 1 FROM ${s}.notifications n
          WHERE n.passcode_id = c.id AND n.kind = c.kind AND n.expires_at = c.expires_at AND n.sent_at IS NOT NULL
        ) AS sent
        FROM (SELECT * FROM expired_email UNION ALL SELECT * FROM first_email) AS c
        ORDER BY c.expires_at, c.id
        LIMIT ${$.limit}
      ), settled AS (
        UPDATE ${s}.account_passcodes p SET
          soon_sent_for = CASE WHEN c.kind = 'expiring_soon' THEN c.expires_at ELSE p.soon_sent_for END,
          expired_sent_for = CASE WHEN c.kind = 'expired' THEN c.expires_at ELSE p.expired_sent_for END
        FROM candidates c
        WHERE c.sent AND p.id = c.id
        RETURNING 1
      ), claimed AS (
        INSERT INTO ${s}.notifications AS n (passcode_id, kind, expires_at, token, claimed_until, sent_at)
        SELECT id, kind, expires_at, ${$.token}, ${$.now} + ${$.leaseMs}, NULL FROM candidates WHERE NOT sent
        ON CONFLICT (passcode_id, kind, expires_at) DO UPDATE
          SET token = excluded.token, claimed_until = excluded.claimed_until
          WHERE n.sent_at IS NULL AND n.claimed_until <= ${$.now}
        RETURNING n.passcode_id, n.kind, n.expires_at
      )
      SELECT c.id AS passcode_id, c.account_id, c.name, c.hint, c.kind, c.expires_at, claimed.passcode_id IS NOT NULL AS claimed
      FROM candidates c
      LEFT JOIN claimed ON c.id = claimed.passcode_id AND c.kind = claimed.kind AND c.expires_at = claimed.expires_at
      ORDER BY c.expires_at, c.id`,
  ),
  releaseNotification: namedStatement(
    RELEASE_INPUTS,
    ($) => `
      DELETE FROM ${s}.notifications
      WHERE passcode_id = ${$.passcodeId} AND kind = ${$.kind} AND expires_at = ${$.expiresAt} AND token = ${$.token} AND sent_at IS NULL`,
  ),
})
