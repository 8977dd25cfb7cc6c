/**
 * The SQL functions of limits and credits (SPEC §5.50; migration 15): the counters of
 * core/limit-counters.ts computed in PostgreSQL, so that a lease is one statement
 * (`SELECT lease_limits(…)`), atomic under the counter's row lock, with no session state
 * (it runs as is through PgBouncer in transaction mode). The store conformance suite
 * holds them to the memory store's answers.
 */

/** The statements that create the functions, in order; `s` is the schema. */
export function limitFunctions(s: string): string[] {
  return [
    // The start of the UTC refill interval that holds `at` (core/limits.ts, refillPeriodStart),
    // or of the one `step` intervals later: a day, an ISO week (from Monday), a month.
    `CREATE OR REPLACE FUNCTION ${s}.refill_period_start(refill_interval text, at bigint, step integer) RETURNS bigint
        LANGUAGE sql IMMUTABLE AS $period$
      SELECT CASE refill_interval
        WHEN 'day' THEN (floor(at / 86400000.0) + step)::bigint * 86400000
        WHEN 'week' THEN (floor((at - 345600000) / 604800000.0) + step)::bigint * 604800000 + 345600000
        ELSE (extract(epoch FROM date_trunc('month', to_timestamp(at / 1000.0) AT TIME ZONE 'UTC') + make_interval(months => step)) * 1000)::bigint
      END
      $period$`,
    // One lease (ports/limits-part.ts, leaseLimits): the counter's row is locked first and
    // the credential's settings read after, so that a lease never applies a setting older
    // than one a lease before it applied. JSON text out (NULL: no such credential).
    `CREATE OR REPLACE FUNCTION ${s}.lease_limits(
        p_kind text, p_account text, p_key text, p_now bigint, p_credits bigint, p_slots bigint, p_low double precision,
        p_token text, p_until bigint, p_low_id text, p_exhausted_id text) RETURNS text
        LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $lease$
      DECLARE
        c ${s}.limit_counters%ROWTYPE;
        v_rate jsonb;
        v_credits jsonb;
        v_name text;
        v_hint text;
        v_refill jsonb;
        v_interval text;
        v_full bigint;
        v_line bigint;
        v_period bigint;
        v_set_period bigint;
        v_granted bigint;
        v_crossed_low boolean := false;
        v_crossed_exhausted boolean := false;
        v_credit_part json := NULL;
        v_window_ms bigint;
        v_start bigint;
        v_used bigint;
        v_slots bigint;
        v_slot_part json := NULL;
        v_next bigint;
        v_notices json := '[]'::json;
      BEGIN
        INSERT INTO ${s}.limit_counters (account_id, kind, key) VALUES (p_account, p_kind, p_key) ON CONFLICT DO NOTHING;
        SELECT * INTO c FROM ${s}.limit_counters WHERE account_id = p_account AND kind = p_kind AND key = p_key FOR UPDATE;
        IF p_kind = 'account' THEN
          SELECT rate_limit, credits, name, hint INTO v_rate, v_credits, v_name, v_hint
          FROM ${s}.account_passcodes WHERE account_id = p_account AND id = p_key;
        ELSE
          SELECT rate_limit, credits INTO v_rate, v_credits FROM ${s}.user_passcodes WHERE account_id = p_account AND user_id = p_key;
        END IF;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;

        IF jsonb_typeof(v_credits) = 'object' THEN
          v_refill := CASE WHEN jsonb_typeof(v_credits->'refill') = 'object' THEN v_credits->'refill' END;
          v_interval := v_refill->>'interval';
          v_full := coalesce((v_refill->>'amount')::bigint, (v_credits->>'remaining')::bigint);
          v_line := floor(v_full::double precision * p_low)::bigint;
          v_period := CASE WHEN v_refill IS NULL THEN 0 ELSE ${s}.refill_period_start(v_interval, p_now, 0) END;
          IF c.credit_epoch IS DISTINCT FROM v_credits->>'epoch' THEN
            -- A new setting: its balance, or the refill amount once an interval after it began.
            v_set_period := CASE WHEN v_refill IS NULL THEN 0 ELSE ${s}.refill_period_start(v_interval, (v_credits->>'setAt')::bigint, 0) END;
            c.credit_epoch := v_credits->>'epoch';
            IF v_period > v_set_period THEN
              c.credit_balance := (v_refill->>'amount')::bigint;
              c.credit_period := v_period;
            ELSE
              c.credit_balance := (v_credits->>'remaining')::bigint;
              c.credit_period := v_set_period;
            END IF;
            c.low_sent := c.credit_balance <= v_line;
            c.exhausted_sent := false;
          ELSIF v_refill IS NOT NULL AND v_period > c.credit_period THEN
            c.credit_balance := (v_refill->>'amount')::bigint;
            c.credit_period := v_period;
            c.low_sent := c.credit_balance <= v_line;
            c.exhausted_sent := false;
          END IF;
          -- Never more than half of what is left, rounded up.
          v_granted := least(p_credits, (c.credit_balance + 1) / 2);
          c.credit_balance := c.credit_balance - v_granted;
          v_crossed_low := NOT c.low_sent AND c.credit_balance <= v_line;
          v_crossed_exhausted := NOT c.exhausted_sent AND p_credits > 0 AND v_granted = 0;
          c.low_sent := c.low_sent OR v_crossed_low;
          c.exhausted_sent := c.exhausted_sent OR v_crossed_exhausted;
          v_credit_part := json_build_object('granted', v_granted, 'balance', c.credit_balance, 'epoch', c.credit_epoch, 'period', c.credit_period);
          v_next := CASE WHEN v_refill IS NULL THEN NULL ELSE ${s}.refill_period_start(v_interval, p_now, 1) END;
          IF v_crossed_low OR v_crossed_exhausted THEN
            INSERT INTO ${s}.credit_notices (id, account_id, kind, key, type, at, balance, full_amount, next_refill_at, name, hint, token, claimed_until)
            SELECT n.id, p_account, p_kind, p_key, n.type, p_now, c.credit_balance, v_full, v_next, v_name, v_hint, p_token, p_until
            FROM (VALUES (p_low_id, 'low', v_crossed_low), (p_exhausted_id, 'exhausted', v_crossed_exhausted)) AS n (id, type, crossed)
            WHERE n.crossed;
            SELECT coalesce(json_agg(json_build_object('id', n.id, 'type', n.type)), '[]'::json) INTO v_notices
            FROM (VALUES (p_low_id, 'low', v_crossed_low), (p_exhausted_id, 'exhausted', v_crossed_exhausted)) AS n (id, type, crossed)
            WHERE n.crossed;
          END IF;
        END IF;

        IF jsonb_typeof(v_rate) = 'object' THEN
          -- The fixed window that holds now; one the counter has passed gets nothing.
          v_window_ms := (v_rate->>'windowSeconds')::bigint * 1000;
          v_start := (p_now / v_window_ms) * v_window_ms;
          IF c.window_ms = v_window_ms AND c.window_start > v_start THEN
            v_slots := 0;
          ELSE
            v_used := CASE WHEN c.window_ms = v_window_ms AND c.window_start = v_start THEN c.window_used ELSE 0 END;
            v_slots := greatest(0, least(p_slots, ceil(((v_rate->>'max')::bigint - v_used) / 2.0)::bigint));
            c.window_start := v_start;
            c.window_ms := v_window_ms;
            c.window_used := v_used + v_slots;
          END IF;
          v_slot_part := json_build_object('granted', v_slots, 'windowStart', c.window_start, 'windowMs', c.window_ms);
        END IF;

        UPDATE ${s}.limit_counters SET
          credit_epoch = c.credit_epoch, credit_period = c.credit_period, credit_balance = c.credit_balance,
          low_sent = c.low_sent, exhausted_sent = c.exhausted_sent,
          window_start = c.window_start, window_ms = c.window_ms, window_used = c.window_used
        WHERE account_id = p_account AND kind = p_kind AND key = p_key;
        RETURN json_build_object('credits', v_credit_part, 'slots', v_slot_part, 'notices', v_notices,
                                 'full', v_full, 'nextRefillAt', v_next, 'name', v_name, 'hint', v_hint)::text;
      END
      $lease$`,
  ]
}
