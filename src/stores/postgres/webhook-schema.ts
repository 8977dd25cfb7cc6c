/**
 * The statements of migration 16 (SPEC §5.53): webhook endpoints, the event outbox and
 * the trigger that fills it. Every change that has an event already appends an audit
 * record in its transaction (SPEC §5.40), so the events are made from that record, in
 * the same transaction, by an `AFTER INSERT` trigger on `audit_records`: no write
 * statement of the store changes, and no change commits without its events (a failed
 * outbox insert fails the change). The trigger repeats `webhookEventsOf`
 * (core/webhook-events.ts) in PL/pgSQL; the store conformance suite checks that both
 * stores store the same events for the same changes.
 *
 * An account without an enabled endpoint costs the trigger one index probe and no write.
 * A deleted passcode's hint is read from the row as the delete found it: a `BEFORE
 * DELETE` trigger keeps it in a transaction-local setting, which the audit trigger of the
 * same transaction reads.
 */
export function webhookSchema(s: string): string[] {
  return [
    // Secrets are kept as they are: they must sign. Never in a view, a log or an event.
    `CREATE TABLE ${s}.webhook_endpoints (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      url text NOT NULL,
      -- NULL: every event type.
      events text[],
      description text NOT NULL DEFAULT '',
      enabled boolean NOT NULL,
      disabled_reason text CHECK (disabled_reason IN ('failing')),
      secret text NOT NULL,
      previous_secret text,
      previous_secret_ends_at bigint,
      failing_since bigint,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      -- The admins' email about an endpoint disabled for failing, claimed like the leak emails.
      notice_due boolean NOT NULL DEFAULT false,
      notice_token text,
      notice_claimed_until bigint NOT NULL DEFAULT 0
    )`,
    // The trigger's probe (enabled endpoints of an account) and the list.
    `CREATE INDEX webhook_endpoints_account ON ${s}.webhook_endpoints (account_id, created_at) WHERE enabled`,
    `CREATE INDEX webhook_endpoints_all ON ${s}.webhook_endpoints (account_id, created_at)`,
    `CREATE INDEX webhook_endpoints_notice_due ON ${s}.webhook_endpoints (id) WHERE notice_due`,
    `CREATE TABLE ${s}.webhook_events (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      type text NOT NULL,
      at bigint NOT NULL,
      data jsonb NOT NULL
    )`,
    // One row per event and endpoint: its id is the webhook-id of every attempt.
    `CREATE TABLE ${s}.webhook_deliveries (
      id text PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      account_id text NOT NULL,
      endpoint_id text NOT NULL REFERENCES ${s}.webhook_endpoints (id) ON DELETE CASCADE,
      event_id text NOT NULL REFERENCES ${s}.webhook_events (id),
      state text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at bigint,
      token text,
      last_attempt_at bigint,
      last_status integer,
      last_error text,
      created_at bigint NOT NULL
    )`,
    // What a claim reads: the pending deliveries only, by when they are due, so its cost
    // follows what is due, never the deliveries done.
    `CREATE INDEX webhook_deliveries_due ON ${s}.webhook_deliveries (next_attempt_at, seq) WHERE state = 'pending'`,
    `CREATE INDEX webhook_deliveries_account ON ${s}.webhook_deliveries (account_id, created_at DESC, id DESC)`,
    `CREATE INDEX webhook_deliveries_endpoint ON ${s}.webhook_deliveries (endpoint_id)`,
    `CREATE INDEX webhook_deliveries_event ON ${s}.webhook_deliveries (event_id)`,
    // An instant as events write it: ISO 8601 in UTC with milliseconds, as JavaScript's toISOString.
    `CREATE FUNCTION ${s}.webhook_instant(ms bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $instant$
      SELECT to_char(timestamp '1970-01-01' + ms * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    $instant$`,
    // Stores one event for each enabled endpoint of the account that subscribed to its
    // type, in the caller's transaction; nothing when none did. Also for a host's own
    // changes that have no audit record (enqueueWebhookEvent, webhook-store.ts): call it in
    // their transaction. Returns how many deliveries it queued.
    `CREATE FUNCTION ${s}.enqueue_webhook_event(account text, event_type text, event_at bigint, event_data jsonb) RETURNS integer
    LANGUAGE plpgsql AS $enqueue$
    DECLARE
      queued integer;
    BEGIN
      WITH targets AS (
        SELECT e.id FROM ${s}.webhook_endpoints e
        WHERE e.account_id = account AND e.enabled AND (e.events IS NULL OR event_type = ANY (e.events))
      ), event AS (
        INSERT INTO ${s}.webhook_events (id, account_id, type, at, data)
        SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), account, event_type, event_at, event_data
        WHERE EXISTS (SELECT FROM targets)
        RETURNING id
      ), deliveries AS (
        INSERT INTO ${s}.webhook_deliveries (id, account_id, endpoint_id, event_id, state, next_attempt_at, created_at)
        SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), account, t.id, event.id, 'pending', event_at, event_at
        FROM targets t CROSS JOIN event
        RETURNING 1
      )
      SELECT count(*) INTO queued FROM deliveries;
      RETURN queued;
    END
    $enqueue$`,
    `CREATE FUNCTION ${s}.webhook_deleted_passcode() RETURNS trigger LANGUAGE plpgsql AS $deleted$
    BEGIN
      PERFORM set_config('passcode_auth.deleted_passcode', json_build_object('id', OLD.id, 'hint', OLD.hint, 'expiresAt', OLD.expires_at)::text, true);
      RETURN OLD;
    END
    $deleted$`,
    `CREATE TRIGGER account_passcodes_webhook_deleted BEFORE DELETE ON ${s}.account_passcodes
      FOR EACH ROW EXECUTE FUNCTION ${s}.webhook_deleted_passcode()`,
    // webhookEventsOf (core/webhook-events.ts), record by record.
    webhookEventsFunction(s, {
      create: 'CREATE FUNCTION',
      declare: '',
      probe: `      IF NOT EXISTS (SELECT FROM ${s}.webhook_endpoints e WHERE e.account_id = NEW.account_id AND e.enabled) THEN
        RETURN NULL;
      END IF;`,
      emit: (type, data) => `PERFORM ${s}.enqueue_webhook_event(NEW.account_id, ${type}, NEW.at, ${data});`,
      flush: '',
    }),
    `CREATE TRIGGER audit_records_webhook_events AFTER INSERT ON ${s}.audit_records
      FOR EACH ROW EXECUTE FUNCTION ${s}.webhook_events_from_audit()`,
  ]
}

/**
 * The statements of migration 17 (issue 46): the same events, made with less work in the
 * transaction of each change. Profiled on PostgreSQL (pg_stat_statements with
 * `track = all`), a rename in an account with one endpoint spent its extra time in the
 * trigger's nested statements: a probe of the account's endpoints, the call of
 * `enqueue_webhook_event` (a statement of its own that ran the outbox insert, a second
 * one), that insert reading the endpoints again, and the two foreign-key checks of each
 * delivery row (its endpoint, and its event inserted by the same statement), with an
 * index on `event_id` that only the second check's reverse side (deleting an event) read.
 *
 * - The trigger reads the account's enabled endpoints once, as a `jsonb` object of each
 *   endpoint's id and subscribed types (`null`: every type), collects the record's events
 *   and stores each with one statement, without a function call.
 * - The foreign key from a delivery to its event and the index `webhook_deliveries_event`
 *   are dropped. A delivery still never exists without its event: the only statements that
 *   insert deliveries (this trigger, `enqueue_webhook_event`, the test event of
 *   webhook-statements.ts, the credit notices' trigger of version 18, and those of version
 *   16 that an instance of the version before runs) insert its event in the same statement; and what the foreign key refused on the
 *   event's side (deleting an event that still has deliveries, changing its id, emptying
 *   the table under them) statement triggers on `webhook_events` still refuse, with the
 *   same error code (23503), checking once per statement what it removed. No version of
 *   the package changes or deletes an event: those triggers cost the writes nothing.
 * - The foreign key to the endpoint stays: it deletes an endpoint's deliveries with it and
 *   holds the endpoint while a change queues a delivery for it.
 *
 * Each step changes the catalog only: the drops take their lock for a moment, whatever the
 * tables' sizes.
 */
export function leanerWebhookOutbox(s: string): string[] {
  return [
    webhookEventsFunction(s, {
      create: 'CREATE OR REPLACE FUNCTION',
      declare: `
      -- The account's enabled endpoints: id -> the types it subscribed to, or null for every type.
      endpoints jsonb;
      types text[] := '{}';
      datas jsonb[] := '{}';`,
      probe: `      SELECT jsonb_object_agg(e.id, e.events) INTO endpoints FROM ${s}.webhook_endpoints e
      WHERE e.account_id = NEW.account_id AND e.enabled;
      IF endpoints IS NULL THEN
        RETURN NULL;
      END IF;`,
      emit: (type, data) => `types := array_append(types, ${type}); datas := array_append(datas, ${data});`,
      // Each event, in order, for the endpoints that subscribed to its type; nothing when none did.
      flush: `
      FOR i IN 1 .. cardinality(types) LOOP
        WITH targets AS (
          SELECT t.key AS id FROM jsonb_each(endpoints) AS t WHERE t.value = 'null'::jsonb OR t.value ? types[i]
        ), event AS (
          INSERT INTO ${s}.webhook_events (id, account_id, type, at, data)
          SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), NEW.account_id, types[i], NEW.at, datas[i]
          WHERE EXISTS (SELECT FROM targets)
          RETURNING id
        )
        INSERT INTO ${s}.webhook_deliveries (id, account_id, endpoint_id, event_id, state, next_attempt_at, created_at)
        SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), NEW.account_id, t.id, event.id, 'pending', NEW.at, NEW.at
        FROM targets t CROSS JOIN event;
      END LOOP;`,
    }),
    `ALTER TABLE ${s}.webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey`,
    `DROP INDEX ${s}.webhook_deliveries_event`,
    // What the foreign key refused on the event's side, checked once per statement against
    // what it removed (so without an index on event_id): deleting an event that still has
    // deliveries, changing its id, or emptying the events while deliveries remain.
    `CREATE FUNCTION ${s}.webhook_events_kept() RETURNS trigger LANGUAGE plpgsql AS $kept$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        IF EXISTS (SELECT FROM ${s}.webhook_deliveries) THEN
          RAISE EXCEPTION 'webhook deliveries still refer to their events in %.webhook_events', TG_TABLE_SCHEMA
            USING ERRCODE = 'foreign_key_violation';
        END IF;
      ELSIF TG_OP = 'DELETE' THEN
        IF EXISTS (SELECT FROM gone JOIN ${s}.webhook_deliveries d ON d.event_id = gone.id) THEN
          RAISE EXCEPTION 'webhook deliveries still refer to a deleted event of %.webhook_events', TG_TABLE_SCHEMA
            USING ERRCODE = 'foreign_key_violation';
        END IF;
      ELSIF EXISTS (
        SELECT FROM gone JOIN ${s}.webhook_deliveries d ON d.event_id = gone.id WHERE NOT EXISTS (SELECT FROM kept WHERE kept.id = gone.id)
      ) THEN
        RAISE EXCEPTION 'webhook deliveries still refer to a changed event id of %.webhook_events', TG_TABLE_SCHEMA
          USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NULL;
    END
    $kept$`,
    `CREATE TRIGGER webhook_events_kept_on_delete AFTER DELETE ON ${s}.webhook_events
      REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ${s}.webhook_events_kept()`,
    `CREATE TRIGGER webhook_events_kept_on_update AFTER UPDATE ON ${s}.webhook_events
      REFERENCING OLD TABLE AS gone NEW TABLE AS kept FOR EACH STATEMENT EXECUTE FUNCTION ${s}.webhook_events_kept()`,
    `CREATE TRIGGER webhook_events_kept_on_truncate AFTER TRUNCATE ON ${s}.webhook_events
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.webhook_events_kept()`,
  ]
}

/** How a version of the trigger stores the events it makes (see {@link webhookEventsFunction}). */
interface OutboxWrites {
  /** `CREATE FUNCTION`, or `CREATE OR REPLACE FUNCTION` for a later version. */
  readonly create: string
  /** Extra variables. */
  readonly declare: string
  /** Returns early when the account has no enabled endpoint. */
  readonly probe: string
  /** The PL/pgSQL that stores (or collects) one event of type and data (SQL expressions). */
  readonly emit: (type: string, data: string) => string
  /** Runs after every event of the record was emitted. */
  readonly flush: string
}

/**
 * The trigger function on `audit_records`: webhookEventsOf (core/webhook-events.ts) in
 * PL/pgSQL, record by record, with how it stores the events as `outbox` says (version 16
 * calls `enqueue_webhook_event` per event; version 17 stores them itself).
 */
function webhookEventsFunction(s: string, outbox: OutboxWrites): string {
  return `${outbox.create} ${s}.webhook_events_from_audit() RETURNS trigger LANGUAGE plpgsql AS $events$
    DECLARE
      target jsonb;
      changes jsonb;
      deleted jsonb;
      hint text;
      expires bigint;
      on_passcode boolean;
      base jsonb;
      leak jsonb;
      kind text;${outbox.declare}
    BEGIN
      IF NEW.action NOT IN ('passcode.created', 'passcode.updated', 'passcode.partners_changed', 'passcode.rotated', 'passcode.disabled',
          'passcode.enabled', 'passcode.deleted', 'passcode.leak_reported', 'user_passcode.granted', 'user_passcode.reset',
          'user_passcode.revoked', 'notification.sent') THEN
        RETURN NULL;
      END IF;
${outbox.probe}
      target := NEW.target::jsonb;
      changes := NEW.changes::jsonb;
      on_passcode := target->>'type' = 'passcode';
      IF on_passcode THEN
        SELECT p.hint, p.expires_at INTO hint, expires FROM ${s}.account_passcodes p
        WHERE p.id = target->>'id' AND p.account_id = NEW.account_id;
        IF NOT FOUND THEN
          deleted := nullif(current_setting('passcode_auth.deleted_passcode', true), '')::jsonb;
          IF deleted->>'id' = target->>'id' THEN
            hint := deleted->>'hint';
            expires := (deleted->>'expiresAt')::bigint;
          END IF;
        END IF;
        base := jsonb_build_object('passcode', jsonb_build_object('id', target->>'id', 'name', target->>'name', 'hint', hint));
      ELSIF target->>'type' = 'user' THEN
        SELECT u.hint INTO hint FROM ${s}.user_passcodes u WHERE u.account_id = NEW.account_id AND u.user_id = target->>'id';
        base := jsonb_build_object('userPasscode', jsonb_build_object('userId', target->>'id', 'hint', hint));
      ELSE
        RETURN NULL;
      END IF;
      base := base || jsonb_build_object('actor', NEW.actor::jsonb);
      CASE NEW.action
        WHEN 'passcode.created', 'passcode.disabled', 'passcode.enabled', 'passcode.deleted' THEN
          IF on_passcode THEN ${outbox.emit(`NEW.action`, `base`)} END IF;
        WHEN 'passcode.updated', 'passcode.partners_changed' THEN
          IF on_passcode THEN
            ${outbox.emit(
              `'passcode.updated'`,
              `base || jsonb_build_object('changed',
              (SELECT coalesce(jsonb_agg(field ORDER BY field COLLATE "C"), '[]'::jsonb) FROM jsonb_object_keys(changes) AS field))`,
            )}
          END IF;
        WHEN 'passcode.rotated' THEN
          IF on_passcode THEN
            ${outbox.emit(
              `'passcode.rotated'`,
              `base || jsonb_build_object('previousValueEndsAt',
              ${s}.webhook_instant(CASE WHEN jsonb_typeof(changes->'previousValueEndsAt'->'after') = 'number' THEN (changes->'previousValueEndsAt'->>'after')::bigint END))`,
            )}
          END IF;
        WHEN 'user_passcode.granted', 'user_passcode.reset', 'user_passcode.revoked' THEN
          IF NOT on_passcode THEN ${outbox.emit(`NEW.action`, `base`)} END IF;
        WHEN 'passcode.leak_reported' THEN
          leak := jsonb_build_object(
            'source', CASE WHEN jsonb_typeof(changes->'source'->'after') = 'string' THEN changes->'source'->'after' END,
            'url', CASE WHEN jsonb_typeof(changes->'url'->'after') = 'string' THEN changes->'url'->'after' END,
            'action', CASE WHEN jsonb_typeof(changes->'action'->'after') = 'string' THEN changes->'action'->'after' END);
          IF NOT on_passcode THEN
            ${outbox.emit(`'user_passcode.leaked'`, `base || leak`)}
            ${outbox.emit(`'user_passcode.revoked'`, `base`)}
          ELSE
            ${outbox.emit(`'passcode.leaked'`, `base || leak`)}
            IF changes->'action'->>'after' = 'deleted' THEN
              ${outbox.emit(`'passcode.deleted'`, `base`)}
            ELSIF changes ? 'disabled' THEN
              ${outbox.emit(`'passcode.disabled'`, `base`)}
            END IF;
          END IF;
        WHEN 'notification.sent' THEN
          kind := changes->'notification'->>'after';
          IF on_passcode AND kind IN ('expiring_soon', 'expired') THEN
            ${outbox.emit(`'passcode.' || kind`, `base || jsonb_build_object('expiresAt', ${s}.webhook_instant(expires))`)}
          END IF;
        ELSE
          NULL;
      END CASE;${outbox.flush}
      RETURN NULL;
    END
    $events$`
}

/**
 * The statements of migration 18 (SPEC §5.50, §5.53): the `credits.low` and
 * `credits.exhausted` events. A lease that crosses a line inserts its notice in
 * `credit_notices` within its one statement (`lease_limits`, limit-schema.ts); an
 * `AFTER INSERT` trigger on that table stores the notice's event for the account's
 * enabled endpoints that subscribed to its type, in the same transaction, as
 * `creditWebhookEvent` (core/webhook-events.ts) makes it: no crossing commits without its
 * event, whichever version of the package leased. A user passcode's hint is read from its
 * row (a notice carries only an account passcode's name and hint). An account without an
 * enabled endpoint costs one index probe, once per crossing (not per request).
 */
export function creditWebhookEvents(s: string): string[] {
  return [
    `CREATE FUNCTION ${s}.webhook_events_from_credit_notice() RETURNS trigger LANGUAGE plpgsql AS $credit$
    DECLARE
      endpoints jsonb;
      event_type text := 'credits.' || NEW.type;
      subject jsonb;
    BEGIN
      SELECT jsonb_object_agg(e.id, e.events) INTO endpoints FROM ${s}.webhook_endpoints e
      WHERE e.account_id = NEW.account_id AND e.enabled;
      IF endpoints IS NULL THEN
        RETURN NULL;
      END IF;
      IF NEW.kind = 'account' THEN
        subject := jsonb_build_object('passcode', jsonb_build_object('id', NEW.key, 'name', NEW.name, 'hint', NEW.hint));
      ELSE
        subject := jsonb_build_object('userPasscode', jsonb_build_object('userId', NEW.key, 'hint',
          (SELECT u.hint FROM ${s}.user_passcodes u WHERE u.account_id = NEW.account_id AND u.user_id = NEW.key)));
      END IF;
      WITH targets AS (
        SELECT t.key AS id FROM jsonb_each(endpoints) AS t WHERE t.value = 'null'::jsonb OR t.value ? event_type
      ), event AS (
        INSERT INTO ${s}.webhook_events (id, account_id, type, at, data)
        SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), NEW.account_id, event_type, NEW.at,
               subject || jsonb_build_object('actor', jsonb_build_object('type', 'system'), 'remaining', NEW.balance,
                 'full', NEW.full_amount, 'nextRefillAt', ${s}.webhook_instant(NEW.next_refill_at))
        WHERE EXISTS (SELECT FROM targets)
        RETURNING id
      )
      INSERT INTO ${s}.webhook_deliveries (id, account_id, endpoint_id, event_id, state, next_attempt_at, created_at)
      SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), NEW.account_id, t.id, event.id, 'pending', NEW.at, NEW.at
      FROM targets t CROSS JOIN event;
      RETURN NULL;
    END
    $credit$`,
    `CREATE TRIGGER credit_notices_webhook_events AFTER INSERT ON ${s}.credit_notices
      FOR EACH ROW EXECUTE FUNCTION ${s}.webhook_events_from_credit_notice()`,
  ]
}
