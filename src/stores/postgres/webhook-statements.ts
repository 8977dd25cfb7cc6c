const ENDPOINT_COLUMNS =
  'id, account_id, url, events, description, enabled, disabled_reason, secret, previous_secret, previous_secret_ends_at, failing_since, created_at, updated_at'
const DELIVERY_COLUMNS =
  'd.id, d.account_id, d.endpoint_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, d.created_at'

/**
 * The webhooks' statements for one schema (SPEC §5.53), the same for `pg` and PGlite.
 * The outbox itself is filled by the trigger of migration 16 (webhook-schema.ts), in the
 * transaction of each change; these manage endpoints and move deliveries along.
 */
export function webhookStatements(s: string) {
  return {
    endpointColumns: ENDPOINT_COLUMNS,
    // Under the account's row lock (account-lock.ts), which serialises an account's creates, so the per-account maximum holds under concurrency.
    createEndpoint: `
      INSERT INTO ${s}.webhook_endpoints (${ENDPOINT_COLUMNS})
      SELECT $1::text, $2::text, $3::text, $4::text[], $5::text, $6::boolean, $7::text, $8::text, $9::text, $10::bigint, $11::bigint, $12::bigint, $13::bigint
      WHERE (SELECT count(*) FROM ${s}.webhook_endpoints WHERE account_id = $2::text) < $14::integer
      RETURNING ${ENDPOINT_COLUMNS}`,
    // `e.enabled` in SET is the value before the update: enabling a disabled endpoint clears its failing state.
    updateEndpoint: `
      UPDATE ${s}.webhook_endpoints e SET
        url = coalesce($3::text, e.url),
        events = CASE WHEN $4::boolean THEN $5::text[] ELSE e.events END,
        description = coalesce($6::text, e.description),
        enabled = coalesce($7::boolean, e.enabled),
        failing_since = CASE WHEN $7::boolean AND NOT e.enabled THEN NULL ELSE e.failing_since END,
        disabled_reason = CASE WHEN $7::boolean AND NOT e.enabled THEN NULL ELSE e.disabled_reason END,
        notice_due = CASE WHEN $7::boolean AND NOT e.enabled THEN false ELSE e.notice_due END,
        secret = coalesce($8::text, e.secret),
        previous_secret = CASE WHEN $8::text IS NULL THEN e.previous_secret ELSE $9::text END,
        previous_secret_ends_at = CASE WHEN $8::text IS NULL THEN e.previous_secret_ends_at ELSE $10::bigint END,
        updated_at = $11::bigint
      WHERE e.account_id = $1::text AND e.id = $2::text
      RETURNING ${ENDPOINT_COLUMNS}`,
    deleteEndpoint: `DELETE FROM ${s}.webhook_endpoints WHERE account_id = $1::text AND id = $2::text RETURNING ${ENDPOINT_COLUMNS}`,
    getEndpoint: `SELECT ${ENDPOINT_COLUMNS} FROM ${s}.webhook_endpoints WHERE account_id = $1::text AND id = $2::text`,
    listEndpoints: `SELECT ${ENDPOINT_COLUMNS} FROM ${s}.webhook_endpoints WHERE account_id = $1::text ORDER BY created_at, id COLLATE "C"`,
    listDeliveries: `
      SELECT ${DELIVERY_COLUMNS}, ev.type AS event_type, ev.at AS event_at
      FROM ${s}.webhook_deliveries d JOIN ${s}.webhook_events ev ON ev.id = d.event_id
      WHERE d.account_id = $1::text AND ($2::text IS NULL OR d.endpoint_id = $2::text)
        AND ($3::bigint IS NULL OR d.created_at < $3::bigint OR (d.created_at = $3::bigint AND d.id COLLATE "C" < $4::text))
      ORDER BY d.created_at DESC, d.id COLLATE "C" DESC
      LIMIT $5::integer`,
    replayDelivery: `
      WITH replayed AS (
        UPDATE ${s}.webhook_deliveries SET state = 'pending', next_attempt_at = $3::bigint, token = NULL
        WHERE account_id = $1::text AND id = $2::text
        RETURNING *
      )
      SELECT ${DELIVERY_COLUMNS}, ev.type AS event_type, ev.at AS event_at
      FROM replayed d JOIN ${s}.webhook_events ev ON ev.id = d.event_id`,
    // A test event for one endpoint, whatever it subscribed to.
    enqueueTest: `
      WITH endpoint AS (
        SELECT id FROM ${s}.webhook_endpoints WHERE account_id = $1::text AND id = $2::text
      ), event AS (
        INSERT INTO ${s}.webhook_events (id, account_id, type, at, data)
        SELECT $3::text, $1::text, $4::text, $5::bigint, $6::jsonb FROM endpoint
        RETURNING id, type, at
      ), queued AS (
        INSERT INTO ${s}.webhook_deliveries (id, account_id, endpoint_id, event_id, state, next_attempt_at, created_at)
        SELECT $7::text, $1::text, endpoint.id, event.id, 'pending', event.at, event.at FROM endpoint CROSS JOIN event
        RETURNING *
      )
      SELECT ${DELIVERY_COLUMNS}, event.type AS event_type, event.at AS event_at FROM queued d CROSS JOIN event`,
    // Oldest due first through the partial index of pending deliveries; SKIP LOCKED splits
    // them between dispatchers, and the claim moves the due time to the lease's end, so a
    // dispatcher that dies leaves the attempt due again then. FOR UPDATE re-reads a row a
    // concurrent claim committed meanwhile, whose due time has moved: it is not taken twice.
    claimDeliveries: `
      WITH due AS (
        SELECT id, next_attempt_at AS due_at, seq FROM ${s}.webhook_deliveries
        WHERE state = 'pending' AND next_attempt_at <= $1::bigint
        ORDER BY next_attempt_at, seq
        LIMIT $2::integer
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE ${s}.webhook_deliveries d SET token = $3::text, next_attempt_at = $1::bigint + $4::bigint
        FROM due WHERE d.id = due.id
        RETURNING d.id, d.attempts, d.account_id, d.endpoint_id, d.event_id, due.due_at, due.seq
      )
      SELECT c.id, c.attempts, c.account_id, c.endpoint_id, e.url, e.enabled, e.secret,
        CASE WHEN e.previous_secret_ends_at > $1::bigint THEN e.previous_secret END AS previous_secret,
        ev.type AS event_type, ev.at AS event_at, ev.data::text AS event_data
      FROM claimed c
      JOIN ${s}.webhook_endpoints e ON e.id = c.endpoint_id
      JOIN ${s}.webhook_events ev ON ev.id = c.event_id
      ORDER BY c.due_at, c.seq`,
    // Every outcome of a batch in one statement: the deliveries whose claim still holds,
    // then their endpoints' health, locked in id order (so two dispatchers never wait on
    // each other in a circle); an endpoint is disabled when its every attempt failed since
    // $9 ms before its last one. Answers the endpoints this statement disabled.
    completeDeliveries: `
      WITH outcome AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::boolean[], $5::integer[], $6::text[], $7::text[], $8::bigint[])
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
          enabled = e.enabled AND (p.ok OR p.failing_since > p.last_at - $9::bigint),
          disabled_reason = CASE WHEN e.enabled AND NOT p.ok AND p.failing_since <= p.last_at - $9::bigint THEN 'failing' ELSE e.disabled_reason END,
          notice_due = e.notice_due OR (e.enabled AND NOT p.ok AND p.failing_since <= p.last_at - $9::bigint),
          updated_at = CASE WHEN e.enabled AND NOT p.ok AND p.failing_since <= p.last_at - $9::bigint THEN p.last_at ELSE e.updated_at END
        FROM prior p
        WHERE e.id = p.id
        RETURNING ${ENDPOINT_COLUMNS.split(', ')
          .map((column) => `e.${column}`)
          .join(', ')}, p.enabled AS was_enabled, p.last_at
      )
      SELECT * FROM changed c
      WHERE c.was_enabled AND NOT c.enabled`,
    claimNotices: `
      WITH due AS (
        SELECT id FROM ${s}.webhook_endpoints
        WHERE notice_due AND notice_claimed_until <= $1::bigint
        ORDER BY id LIMIT $2::integer
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${s}.webhook_endpoints e SET notice_token = $3::text, notice_claimed_until = $1::bigint + $4::bigint
      FROM due WHERE e.id = due.id
      RETURNING ${ENDPOINT_COLUMNS.split(', ')
        .map((column) => `e.${column}`)
        .join(', ')}`,
    completeNotice: `
      UPDATE ${s}.webhook_endpoints SET notice_due = false, notice_token = NULL
      WHERE id = $1::text AND notice_token = $2::text AND notice_due
      RETURNING id`,
    releaseNotice: `
      UPDATE ${s}.webhook_endpoints SET notice_token = NULL, notice_claimed_until = 0
      WHERE id = $1::text AND notice_token = $2::text AND notice_due`,
    // For the credits of issue 45, inside their own transaction.
    enqueueEvent: `SELECT ${s}.enqueue_webhook_event($1::text, $2::text, $3::bigint, $4::jsonb) AS queued`,
  }
}

/** The webhooks' statements of one schema. */
export type WebhookStatements = ReturnType<typeof webhookStatements>
