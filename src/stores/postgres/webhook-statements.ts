import { CLAIM_INPUTS, claimDue } from './claim-statement'
import { namedStatement, orNull, orNullItems, sqlType } from './named-statement'

const ENDPOINT_COLUMNS =
  'id, account_id, url, events, description, enabled, disabled_reason, secret, previous_secret, previous_secret_ends_at, failing_since, created_at, updated_at'
const DELIVERY_COLUMNS =
  'd.id, d.account_id, d.endpoint_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, d.created_at'

/** An endpoint's disabled-email claim. */
const NOTICE_INPUTS = { endpointId: sqlType.text, token: sqlType.text }

/**
 * The webhooks' statements for one schema (SPEC §5.53), the same for `pg` and PGlite.
 * The outbox itself is filled by the trigger of migration 16 (webhook-schema.ts), in the
 * transaction of each change; these manage endpoints and move deliveries along.
 */
export function webhookStatements(s: string) {
  return {
    // Under the account's row lock (account-lock.ts), which serialises an account's creates, so the per-account maximum holds under concurrency.
    createEndpoint: namedStatement(
      {
        id: sqlType.text,
        accountId: sqlType.text,
        url: sqlType.text,
        events: orNull(sqlType.textArray),
        description: sqlType.text,
        enabled: sqlType.boolean,
        disabledReason: orNull(sqlType.text),
        secret: sqlType.text,
        previousSecret: orNull(sqlType.text),
        previousSecretEndsAt: orNull(sqlType.bigint),
        failingSince: orNull(sqlType.bigint),
        createdAt: sqlType.bigint,
        updatedAt: sqlType.bigint,
        maxPerAccount: sqlType.integer,
      },
      ($) => `
      INSERT INTO ${s}.webhook_endpoints (${ENDPOINT_COLUMNS})
      SELECT ${$.id}, ${$.accountId}, ${$.url}, ${$.events}, ${$.description}, ${$.enabled}, ${$.disabledReason}, ${$.secret},
        ${$.previousSecret}, ${$.previousSecretEndsAt}, ${$.failingSince}, ${$.createdAt}, ${$.updatedAt}
      WHERE (SELECT count(*) FROM ${s}.webhook_endpoints WHERE account_id = ${$.accountId}) < ${$.maxPerAccount}
      RETURNING ${ENDPOINT_COLUMNS}`,
    ),
    // `e.enabled` in SET is the value before the update: enabling a disabled endpoint clears its failing state.
    updateEndpoint: namedStatement(
      {
        accountId: sqlType.text,
        endpointId: sqlType.text,
        url: orNull(sqlType.text),
        eventsGiven: sqlType.boolean,
        events: orNull(sqlType.textArray),
        description: orNull(sqlType.text),
        enabled: orNull(sqlType.boolean),
        secret: orNull(sqlType.text),
        previousSecret: orNull(sqlType.text),
        previousSecretEndsAt: orNull(sqlType.bigint),
        updatedAt: sqlType.bigint,
      },
      ($) => `
      UPDATE ${s}.webhook_endpoints e SET
        url = coalesce(${$.url}, e.url),
        events = CASE WHEN ${$.eventsGiven} THEN ${$.events} ELSE e.events END,
        description = coalesce(${$.description}, e.description),
        enabled = coalesce(${$.enabled}, e.enabled),
        failing_since = CASE WHEN ${$.enabled} AND NOT e.enabled THEN NULL ELSE e.failing_since END,
        disabled_reason = CASE WHEN ${$.enabled} AND NOT e.enabled THEN NULL ELSE e.disabled_reason END,
        notice_due = CASE WHEN ${$.enabled} AND NOT e.enabled THEN false ELSE e.notice_due END,
        secret = coalesce(${$.secret}, e.secret),
        previous_secret = CASE WHEN ${$.secret} IS NULL THEN e.previous_secret ELSE ${$.previousSecret} END,
        previous_secret_ends_at = CASE WHEN ${$.secret} IS NULL THEN e.previous_secret_ends_at ELSE ${$.previousSecretEndsAt} END,
        updated_at = ${$.updatedAt}
      WHERE e.account_id = ${$.accountId} AND e.id = ${$.endpointId}
      RETURNING ${ENDPOINT_COLUMNS}`,
    ),
    deleteEndpoint: namedStatement(
      { accountId: sqlType.text, endpointId: sqlType.text },
      ($) => `DELETE FROM ${s}.webhook_endpoints WHERE account_id = ${$.accountId} AND id = ${$.endpointId} RETURNING ${ENDPOINT_COLUMNS}`,
    ),
    getEndpoint: namedStatement(
      { accountId: sqlType.text, endpointId: sqlType.text },
      ($) => `SELECT ${ENDPOINT_COLUMNS} FROM ${s}.webhook_endpoints WHERE account_id = ${$.accountId} AND id = ${$.endpointId}`,
    ),
    listEndpoints: namedStatement(
      { accountId: sqlType.text },
      ($) => `SELECT ${ENDPOINT_COLUMNS} FROM ${s}.webhook_endpoints WHERE account_id = ${$.accountId} ORDER BY created_at, id COLLATE "C"`,
    ),
    // Newest first; `afterCreatedAt` and `afterId` are the last delivery of the page before (both NULL for the first page).
    listDeliveries: namedStatement(
      {
        accountId: sqlType.text,
        endpointId: orNull(sqlType.text),
        afterCreatedAt: orNull(sqlType.bigint),
        afterId: orNull(sqlType.text),
        limit: sqlType.integer,
      },
      ($) => `
      SELECT ${DELIVERY_COLUMNS}, ev.type AS event_type, ev.at AS event_at
      FROM ${s}.webhook_deliveries d JOIN ${s}.webhook_events ev ON ev.id = d.event_id
      WHERE d.account_id = ${$.accountId} AND (${$.endpointId} IS NULL OR d.endpoint_id = ${$.endpointId})
        AND (${$.afterCreatedAt} IS NULL OR d.created_at < ${$.afterCreatedAt}
          OR (d.created_at = ${$.afterCreatedAt} AND d.id COLLATE "C" < ${$.afterId}))
      ORDER BY d.created_at DESC, d.id COLLATE "C" DESC
      LIMIT ${$.limit}`,
    ),
    replayDelivery: namedStatement(
      { accountId: sqlType.text, deliveryId: sqlType.text, now: sqlType.bigint },
      ($) => `
      WITH replayed AS (
        UPDATE ${s}.webhook_deliveries SET state = 'pending', next_attempt_at = ${$.now}, token = NULL
        WHERE account_id = ${$.accountId} AND id = ${$.deliveryId}
        RETURNING *
      )
      SELECT ${DELIVERY_COLUMNS}, ev.type AS event_type, ev.at AS event_at
      FROM replayed d JOIN ${s}.webhook_events ev ON ev.id = d.event_id`,
    ),
    // A test event for one endpoint, whatever it subscribed to.
    enqueueTest: namedStatement(
      {
        accountId: sqlType.text,
        endpointId: sqlType.text,
        eventId: sqlType.text,
        type: sqlType.text,
        at: sqlType.bigint,
        data: sqlType.jsonb,
        deliveryId: sqlType.text,
      },
      ($) => `
      WITH endpoint AS (
        SELECT id FROM ${s}.webhook_endpoints WHERE account_id = ${$.accountId} AND id = ${$.endpointId}
      ), event AS (
        INSERT INTO ${s}.webhook_events (id, account_id, type, at, data)
        SELECT ${$.eventId}, ${$.accountId}, ${$.type}, ${$.at}, ${$.data} FROM endpoint
        RETURNING id, type, at
      ), queued AS (
        INSERT INTO ${s}.webhook_deliveries (id, account_id, endpoint_id, event_id, state, next_attempt_at, created_at)
        SELECT ${$.deliveryId}, ${$.accountId}, endpoint.id, event.id, 'pending', event.at, event.at FROM endpoint CROSS JOIN event
        RETURNING *
      )
      SELECT ${DELIVERY_COLUMNS}, event.type AS event_type, event.at AS event_at FROM queued d CROSS JOIN event`,
    ),
    // Oldest due first through the partial index of pending deliveries; SKIP LOCKED splits
    // them between dispatchers, and the claim moves the due time to the lease's end, so a
    // dispatcher that dies leaves the attempt due again then. FOR UPDATE re-reads a row a
    // concurrent claim committed meanwhile, whose due time has moved: it is not taken twice.
    claimDeliveries: namedStatement(
      CLAIM_INPUTS,
      ($) => `
      WITH due AS (
        SELECT id, next_attempt_at AS due_at, seq FROM ${s}.webhook_deliveries
        WHERE state = 'pending' AND next_attempt_at <= ${$.now}
        ORDER BY next_attempt_at, seq
        LIMIT ${$.limit}
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE ${s}.webhook_deliveries d SET token = ${$.token}, next_attempt_at = ${$.now} + ${$.leaseMs}
        FROM due WHERE d.id = due.id
        RETURNING d.id, d.attempts, d.account_id, d.endpoint_id, d.event_id, due.due_at, due.seq
      )
      SELECT c.id, c.attempts, c.account_id, c.endpoint_id, e.url, e.enabled, e.secret,
        CASE WHEN e.previous_secret_ends_at > ${$.now} THEN e.previous_secret END AS previous_secret,
        ev.type AS event_type, ev.at AS event_at, ev.data::text AS event_data
      FROM claimed c
      JOIN ${s}.webhook_endpoints e ON e.id = c.endpoint_id
      JOIN ${s}.webhook_events ev ON ev.id = c.event_id
      ORDER BY c.due_at, c.seq`,
    ),
    // Every outcome of a batch in one statement: the deliveries whose claim still holds,
    // then their endpoints' health, locked in id order (so two dispatchers never wait on
    // each other in a circle); an endpoint is disabled when its every attempt failed since
    // `disableAfterMs` before its last one. Answers the endpoints this statement disabled.
    completeDeliveries: namedStatement(
      {
        ids: sqlType.textArray,
        tokens: sqlType.textArray,
        instants: sqlType.bigintArray,
        oks: sqlType.booleanArray,
        statuses: orNullItems(sqlType.integerArray),
        errors: orNullItems(sqlType.textArray),
        states: sqlType.textArray,
        nextAttempts: orNullItems(sqlType.bigintArray),
        disableAfterMs: sqlType.bigint,
      },
      ($) => `
      WITH outcome AS (
        SELECT * FROM unnest(${$.ids}, ${$.tokens}, ${$.instants}, ${$.oks}, ${$.statuses}, ${$.errors}, ${$.states}, ${$.nextAttempts})
          AS o(id, token, at, ok, status, error, state, next_at)
      ), done AS (
        UPDATE ${s}.webhook_deliveries d SET
          state = o.state, attempts = d.attempts + 1, token = NULL,
          next_attempt_at = CASE WHEN o.state = 'pending' THEN o.next_at END,
          last_attempt_at = o.at, last_status = o.status, last_error = o.error
        FROM outcome o
        WHERE d.id = o.id AND d.token = o.token AND d.state = 'pending'
        RETURNING d.endpoint_id, o.ok, o.at
      ), health AS (
        SELECT endpoint_id, bool_or(ok) AS ok, min(at) FILTER (WHERE NOT ok) AS first_failure, max(at) AS last_at
        FROM done GROUP BY endpoint_id
      ), prior AS (
        SELECT e.id, e.enabled, least(coalesce(e.failing_since, h.first_failure), h.first_failure) AS failing_since, h.ok, h.last_at
        FROM ${s}.webhook_endpoints e JOIN health h ON h.endpoint_id = e.id
        ORDER BY e.id
        FOR NO KEY UPDATE OF e
      ), changed AS (
        UPDATE ${s}.webhook_endpoints e SET
          failing_since = CASE WHEN p.ok THEN NULL ELSE p.failing_since END,
          enabled = e.enabled AND (p.ok OR p.failing_since > p.last_at - ${$.disableAfterMs}),
          disabled_reason = CASE WHEN e.enabled AND NOT p.ok AND p.failing_since <= p.last_at - ${$.disableAfterMs} THEN 'failing' ELSE e.disabled_reason END,
          notice_due = e.notice_due OR (e.enabled AND NOT p.ok AND p.failing_since <= p.last_at - ${$.disableAfterMs}),
          updated_at = CASE WHEN e.enabled AND NOT p.ok AND p.failing_since <= p.last_at - ${$.disableAfterMs} THEN p.last_at ELSE e.updated_at END
        FROM prior p
        WHERE e.id = p.id
        RETURNING ${ENDPOINT_COLUMNS.split(', ')
          .map((column) => `e.${column}`)
          .join(', ')}, p.enabled AS was_enabled, p.last_at
      )
      SELECT * FROM changed c
      WHERE c.was_enabled AND NOT c.enabled`,
    ),
    // A disabled endpoint's email to its admins.
    claimNotices: claimDue({
      table: `${s}.webhook_endpoints`,
      key: 'id',
      due: 'notice_due',
      orderBy: 'id',
      token: 'notice_token',
      claimedUntil: 'notice_claimed_until',
      returning: ENDPOINT_COLUMNS.split(', ')
        .map((column) => `n.${column}`)
        .join(', '),
    }),
    completeNotice: namedStatement(
      NOTICE_INPUTS,
      ($) => `
      UPDATE ${s}.webhook_endpoints SET notice_due = false, notice_token = NULL
      WHERE id = ${$.endpointId} AND notice_token = ${$.token} AND notice_due
      RETURNING id`,
    ),
    releaseNotice: namedStatement(
      NOTICE_INPUTS,
      ($) => `
      UPDATE ${s}.webhook_endpoints SET notice_token = NULL, notice_claimed_until = 0
      WHERE id = ${$.endpointId} AND notice_token = ${$.token} AND notice_due`,
    ),
    // For the credits of issue 45, inside their own transaction.
    enqueueEvent: namedStatement(
      { accountId: sqlType.text, type: sqlType.text, at: sqlType.bigint, data: sqlType.jsonb },
      ($) => `SELECT ${s}.enqueue_webhook_event(${$.accountId}, ${$.type}, ${$.at}, ${$.data}) AS queued`,
    ),
  }
}

/** The webhooks' statements of one schema. */
export type WebhookStatements = ReturnType<typeof webhookStatements>
