import type { Database } from './database-interface'
import { limitFunctions } from './limit-schema'
import { creditWebhookEvents, leanerWebhookOutbox, webhookSchema } from './webhook-schema'

/**
 * One versioned schema change: statements run in order, in one transaction. A change to
 * tables that may be large (filling a column, building an index) is `online` instead:
 * it runs outside any transaction, after the versions before it committed, in short
 * statements that each lock few rows (batches, `CREATE INDEX CONCURRENTLY`), and its
 * version is recorded once it finished. It must be safe to run again from the start,
 * and at the same time by two instances (it is, when a start was interrupted).
 */
export interface Migration {
  readonly version: number
  readonly name: string
  /** Single statements (PGlite's extended protocol takes one at a time); `s` is the schema. */
  readonly statements: (s: string) => readonly string[]
  /** Work on populated tables without a long lock (see above); `s` is the schema. */
  readonly online?: (database: Database, s: string) => Promise<void>
  /**
   * Set only on a planned contract step (docs/upgrading.md): a migration that removes,
   * renames or narrows something of the schema the versions before it left. Without it
   * a migration may only expand (SPEC §5.54), which test/stores/migrations-expand.test.ts
   * checks on the catalog each migration leaves.
   */
  readonly contract?: ContractStep
}

/**
 * What a planned contract step removes or narrows, and why a fleet can take it. The
 * version of the package that ships it must come at least one minor after the version
 * from which no code reads or writes what it removes, so that the fleet of the minor
 * before (the one still running during a rolling upgrade) never needs it.
 */
export interface ContractStep {
  /**
   * Each change as the expand check names it, word for word (the check fails on a
   * change not listed here, and on a listed one the migration does not make):
   * `table <t>`, `column <t>.<c>`, `index <i>`, `constraint <t>.<c>`, `function <f>(<args>)`,
   * `type <t>`, `sequence <s>` for a removal or rename; `column type <t>.<c>`,
   * `not null <t>.<c>`, `default <t>.<c>`, `new constraint <t>.<c>`, `new unique index <i>`,
   * `changed index <i>`, `changed constraint <t>.<c>`, `function result <f>(<args>)`,
   * `enum value <t>.<label>`, `domain <t>` for a narrowing.
   */
  readonly changes: readonly string[]
  /** Why the versions a fleet may still run beside it do not need what it removes. */
  readonly reason: string
}

/** Rows per statement of an online migration's batched fill. */
export const FILL_BATCH = 5_000

/** Below this size a table is indexed with a plain `CREATE INDEX`: its lock lasts milliseconds. */
const SMALL_TABLE_BYTES = 8 * 1024 * 1024

/** `CONCURRENTLY ` for a table that is not small, else nothing. */
async function concurrentlyOn(database: Database, table: string): Promise<string> {
  const [size] = await database.query('SELECT pg_total_relation_size($1::regclass)::float8 AS bytes', [table])
  return Number(size?.bytes) >= SMALL_TABLE_BYTES ? 'CONCURRENTLY ' : ''
}

/**
 * Builds an index without blocking writes on a table of any size: `CONCURRENTLY`,
 * unless the table is small (a new database: a concurrent build would wait for every
 * open transaction of the database for nothing). An earlier build that was interrupted
 * left an invalid index of that name: it is dropped and built again. Of two instances
 * that build at once, the one that loses the race finds the winner's index afterwards.
 */
async function createIndexOnline(database: Database, s: string, name: string, table: string, definition: string): Promise<void> {
  const state = async () => {
    const [row] = await database.query(
      `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
      [s, name],
    )
    return row === undefined ? 'absent' : row.valid === true ? 'valid' : 'invalid'
  }
  const before = await state()
  if (before === 'valid') return
  if (before === 'invalid') await database.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}.${name}`)
  const concurrently = await concurrentlyOn(database, `${s}.${table}`)
  try {
    await database.query(`CREATE INDEX ${concurrently}IF NOT EXISTS ${name} ON ${s}.${table} ${definition}`)
  } catch (error) {
    if ((await state()) !== 'valid') throw error
  }
}

/**
 * Every schema change, oldest first. Never edit a released migration: add the next
 * version. Instants are `bigint` epoch milliseconds, exact and the same in `pg`
 * and PGlite.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    statements: (s) => [
      // One row per account that ever had a passcode or a setting: the row a create
      // locks, so the cap and name checks of concurrent creates run one at a time.
      `CREATE TABLE ${s}.accounts (
        account_id text PRIMARY KEY,
        accepted_passcodes text NOT NULL DEFAULT 'account'
          CHECK (accepted_passcodes IN ('account', 'user', 'both'))
      )`,
      // The hash and the display hint only: the value is never stored.
      `CREATE TABLE ${s}.account_passcodes (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        name text NOT NULL,
        name_key text NOT NULL,
        hash text NOT NULL,
        hint text NOT NULL,
        -- NULL means 'forever'.
        expiry_days integer,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        expires_at bigint
      )`,
      `CREATE UNIQUE INDEX account_passcodes_hash_key ON ${s}.account_passcodes (hash)`,
      // Backstop of name uniqueness: also holds for renames, which take no account lock.
      `CREATE UNIQUE INDEX account_passcodes_name_key ON ${s}.account_passcodes (account_id, name_key)`,
      `CREATE INDEX account_passcodes_account_created ON ${s}.account_passcodes (account_id, created_at)`,
      `CREATE INDEX account_passcodes_expires ON ${s}.account_passcodes (expires_at) WHERE expires_at IS NOT NULL`,
      // The hash and the value encrypted as a JWE, so that the user can reveal it.
      `CREATE TABLE ${s}.user_passcodes (
        account_id text NOT NULL,
        user_id text NOT NULL,
        hash text NOT NULL,
        ciphertext text NOT NULL,
        hint text NOT NULL,
        validity_type text NOT NULL CHECK (validity_type IN ('finite', 'infinite')),
        validity_days integer,
        granted_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        revoked_at bigint,
        PRIMARY KEY (account_id, user_id),
        CHECK ((validity_type = 'finite') = (validity_days IS NOT NULL))
      )`,
      `CREATE UNIQUE INDEX user_passcodes_hash_key ON ${s}.user_passcodes (hash)`,
      // One row per passcode, kind and expiry instant: a moved expiry re-arms both emails.
      `CREATE TABLE ${s}.notifications (
        passcode_id text NOT NULL REFERENCES ${s}.account_passcodes (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('expiring_soon', 'expired')),
        expires_at bigint NOT NULL,
        token text,
        claimed_until bigint NOT NULL,
        sent_at bigint,
        PRIMARY KEY (passcode_id, kind, expires_at)
      )`,
      `CREATE TABLE ${s}.partners (
        name text PRIMARY KEY,
        added_at bigint NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    name: 'partner binding, rotation overlap, last use',
    statements: (s) => [
      // NULL: unbound. Otherwise the normalised partner names, never an empty list.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN partners text[]
        CHECK (partners IS NULL OR cardinality(partners) > 0)`,
      // At most one previous value per passcode, kept until its overlap ends.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN previous_hash text`,
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN previous_hash_ends_at bigint`,
      `ALTER TABLE ${s}.account_passcodes ADD CONSTRAINT account_passcodes_previous_hash_check
        CHECK ((previous_hash IS NULL) = (previous_hash_ends_at IS NULL))`,
      // The verification lookup probes this index as well as the hash one.
      `CREATE UNIQUE INDEX account_passcodes_previous_hash_key ON ${s}.account_passcodes (previous_hash)`,
      // Written by the batched usage flushes only, never on a request.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN last_used_at bigint`,
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN last_used_partner text`,
      `ALTER TABLE ${s}.user_passcodes ADD COLUMN last_used_at bigint`,
      `ALTER TABLE ${s}.user_passcodes ADD COLUMN last_used_partner text`,
    ],
  },
  {
    version: 3,
    name: 'fleet-wide brute-force limiter, pepper rotation',
    statements: (s) => [
      // One row per key (client address or account ID) that failed within its window:
      // the newest `limit_count` failure instants, oldest first. Rows whose window has
      // passed are deleted by the flushes, never on a request.
      `CREATE TABLE ${s}.rate_limit_failures (
        key text PRIMARY KEY,
        instants bigint[] NOT NULL,
        limit_count integer NOT NULL CHECK (limit_count > 0),
        window_ms bigint NOT NULL CHECK (window_ms > 0),
        expires_at bigint NOT NULL
      )`,
      `CREATE INDEX rate_limit_failures_expires_at ON ${s}.rate_limit_failures (expires_at)`,
      // Which pepper keyed each hash (a fingerprint of it, never the pepper); NULL for
      // hashes written before this version, by whatever pepper was configured then.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN pepper_id text`,
      `ALTER TABLE ${s}.user_passcodes ADD COLUMN pepper_id text`,
    ],
  },
  {
    version: 4,
    name: 'disable without delete, description',
    statements: (s) => [
      // NULL while enabled (SPEC §5.38). The notifier's claim skips disabled rows.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN disabled_at bigint`,
      // SPEC §5.39; the service checks and normalises it, the CHECK is a backstop.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN description text NOT NULL DEFAULT ''
        CHECK (char_length(description) <= 500)`,
    ],
  },
  {
    version: 5,
    name: 'dashboard login links and sessions of the reference server',
    statements: (s) => [
      // The reference server's own operator login (SPEC §5.35): one-time links and
      // sessions, as SHA-256 hashes of their tokens (never a token), so that every
      // instance on one database accepts them and a link works once across the fleet.
      `CREATE TABLE ${s}.dashboard_logins (
        token_hash text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('link', 'session')),
        account_id text NOT NULL,
        actor jsonb NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      )`,
      `CREATE INDEX dashboard_logins_expires_at ON ${s}.dashboard_logins (expires_at)`,
    ],
  },
  {
    version: 6,
    name: 'notifications claimed through what is due',
    statements: (s) => [
      // The expiry instant each email was last sent for (NULL: never). An email is due
      // while its column differs from expires_at, so a new expiry re-arms both at once
      // without any write having to reset them; a pass reads only the rows whose email
      // is due (the partial indexes of version 7), never those notified already.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN soon_sent_for bigint`,
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN expired_sent_for bigint`,
    ],
  },
  {
    version: 7,
    name: 'fill the notification columns, index what is due',
    statements: () => [],
    online: async (database, s) => {
      // Rows already notified get their columns from the notifications table, in batches
      // along the primary key (each one a short transaction of its own). Rows left out
      // (an interrupted start) are only slower to skip: a claim that finds a row's email
      // sent already fills its column itself.
      let after = ''
      for (;;) {
        const [batch] = await database.query(
          `WITH batch AS (
             SELECT id FROM ${s}.account_passcodes WHERE id > $1::text ORDER BY id LIMIT $2::integer
           ), filled AS (
             UPDATE ${s}.account_passcodes p SET
               soon_sent_for = CASE WHEN EXISTS (
                 SELECT 1 FROM ${s}.notifications n WHERE n.passcode_id = p.id AND n.kind = 'expiring_soon'
                   AND n.expires_at = p.expires_at AND n.sent_at IS NOT NULL) THEN p.expires_at ELSE p.soon_sent_for END,
               expired_sent_for = CASE WHEN EXISTS (
                 SELECT 1 FROM ${s}.notifications n WHERE n.passcode_id = p.id AND n.kind = 'expired'
                   AND n.expires_at = p.expires_at AND n.sent_at IS NOT NULL) THEN p.expires_at ELSE p.expired_sent_for END
             FROM batch b
             WHERE p.id = b.id AND EXISTS (
               SELECT 1 FROM ${s}.notifications n WHERE n.passcode_id = p.id AND n.expires_at = p.expires_at AND n.sent_at IS NOT NULL)
             RETURNING 1
           )
           SELECT max(id) AS last, count(*)::integer AS rows FROM batch`,
          [after, FILL_BATCH],
        )
        const last = batch?.last
        if (typeof last !== 'string') break
        after = last
        if (Number(batch?.rows) < FILL_BATCH) break
      }
      // The rows whose first email (expiring soon, or expired for a passcode first seen
      // expired) is not sent, and those whose "expired" email is not: a claim reads the
      // due end of each. Their predicates are repeated word for word by the claim.
      await createIndexOnline(
        database,
        s,
        'account_passcodes_first_email_due',
        'account_passcodes',
        `(expires_at, id)
           WHERE soon_sent_for IS DISTINCT FROM expires_at AND expired_sent_for IS DISTINCT FROM expires_at AND disabled_at IS NULL`,
      )
      await createIndexOnline(
        database,
        s,
        'account_passcodes_expired_email_due',
        'account_passcodes',
        '(expires_at, id) WHERE expired_sent_for IS DISTINCT FROM expires_at AND disabled_at IS NULL',
      )
      // The notifications not sent yet: the live leases a claim passes over (few at any
      // time), read without the rows of every email ever sent.
      await createIndexOnline(database, s, 'notifications_unsent', 'notifications', '(passcode_id, kind, expires_at) WHERE sent_at IS NULL')
      // Read by the claim before version 7 only (see `contract` below).
      const concurrently = await concurrentlyOn(database, `${s}.account_passcodes`)
      await database.query(`DROP INDEX ${concurrently}IF EXISTS ${s}.account_passcodes_expires`)
    },
    // Made before any version of the package was released: no fleet ever ran a version
    // whose claim reads this index beside one without it (and one that did would only
    // claim more slowly, never wrongly: the index served no constraint).
    contract: {
      changes: ['index account_passcodes_expires'],
      reason: 'read only by the notifier claim of schema versions before 7, none of them released',
    },
  },
  {
    version: 8,
    name: 'audit trail',
    statements: (s) => [
      // One row per account with audit records: the newest record (the chain's head,
      // locked by every append, so concurrent appends to one account take turns and the
      // chain never forks; with the hash before it, which the append returns) and the
      // point before the oldest kept one (moved by pruning).
      `CREATE TABLE ${s}.audit_heads (
        account_id text PRIMARY KEY,
        sequence bigint NOT NULL,
        hash text NOT NULL,
        previous_hash text NOT NULL,
        start_sequence bigint NOT NULL,
        start_hash text NOT NULL
      )`,
      // Append-only; actor, target and changes are canonical JSON (core/audit.ts), so the
      // text the hash covers is the text stored. Never a passcode value, hash or key.
      `CREATE TABLE ${s}.audit_records (
        account_id text NOT NULL,
        sequence bigint NOT NULL,
        at bigint NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        target_id text,
        changes text NOT NULL,
        request_id text,
        client_address text,
        previous_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (account_id, sequence)
      )`,
      // Pruning by age across accounts.
      `CREATE INDEX audit_records_at ON ${s}.audit_records (at)`,
    ],
  },
  {
    version: 9,
    name: 'usage over time',
    statements: (s) => [
      // SPEC §5.41: requests per credential (an account passcode's id, or a user id),
      // UTC day, partner ('' for none) and outcome. Written only by the batched usage
      // flushes, which add their counts (n = n + excluded.n); days older than the
      // retention are deleted by them in bounded batches (the day index).
      `CREATE TABLE ${s}.usage_days (
        account_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('account', 'user')),
        key text NOT NULL,
        day date NOT NULL,
        partner text NOT NULL DEFAULT '',
        outcome text NOT NULL CHECK (outcome IN ('succeeded', 'expired', 'disabled', 'revoked', 'wrong_partner', 'rotated_out')),
        n bigint NOT NULL,
        PRIMARY KEY (account_id, kind, key, day, partner, outcome)
      )`,
      `CREATE INDEX usage_days_day ON ${s}.usage_days (day)`,
    ],
  },
  {
    version: 10,
    name: 'the verification lookup as a function',
    statements: (s) => [
      // The verification lookup (statements.ts, findCredentialByHash, as of this version)
      // for connections that cannot keep a named prepared statement (a transaction
      // pooler): PL/pgSQL keeps the plans of its queries per server session, so the call
      // `SELECT s.find_credential_by_hash($1::text)` is all the server plans per lookup.
      // It returns the statement's one row (or NULL) as the text of row_to_json, with
      // the statement's column names. The statement's three probes (an account
      // passcode's current hash, its previous hash, a user passcode's hash; the first
      // that matches wins, as the statement's UNION ALL ... LIMIT 1) run one after the
      // other here, each a plain index probe joined to its account: a match on the
      // current hash, the usual case, runs one small plan instead of starting all
      // three. Every name is schema-qualified, with no `SET search_path` (which the
      // server saves and restores on every call). Both choices measured with
      // `npx tsx bench/pgbouncer-lookup.ts` (figures in docs/benchmarks.md). SECURITY
      // INVOKER: the caller's own rights on the tables. Creating it locks no table. A
      // later change to the lookup replaces it in a new version (14);
      // test/stores/sql-store-cases.ts checks that both return the same row.
      findCredentialFunction(s),
    ],
  },
  {
    version: 11,
    name: 'leak marks',
    statements: (s) => [
      // SPEC §5.42: a credential found in public, where, what was done and whether the
      // admins were told. `open` until an admin acts (enable, rotate, delete; a user
      // passcode's grant or reset); one open mark per credential, which the unique index
      // enforces, so of concurrent reports of one value exactly one acts. The email is
      // claimed like the expiry notifications (token, claimed_until) and retried by the
      // notifier's pass until notified_at is set. Never a value or a hash.
      `CREATE TABLE ${s}.leak_marks (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('account', 'user')),
        key text NOT NULL,
        reported_at bigint NOT NULL,
        url text,
        source text NOT NULL,
        action text NOT NULL CHECK (action IN ('disabled', 'deleted', 'revoked')),
        name text,
        hint text,
        open boolean NOT NULL,
        notified_at bigint,
        token text,
        claimed_until bigint NOT NULL DEFAULT 0
      )`,
      `CREATE UNIQUE INDEX leak_marks_open ON ${s}.leak_marks (account_id, kind, key) WHERE open`,
      `CREATE INDEX leak_marks_unsent ON ${s}.leak_marks (reported_at, id) WHERE notified_at IS NULL`,
    ],
  },
  {
    version: 12,
    name: 'keyed audit records',
    statements: (s) => [
      // SPEC §5.44: every record says which encoding its hash covers (core/audit.ts,
      // auditRecordInput). The records already written are version 1 (the encoding of
      // before: verifiable as they are); the default is dropped at once, so every later
      // insert names its version: an instance of an earlier release, whose append
      // statements do not, fails its audited writes (nothing committed) instead of
      // chaining a plain record after keyed ones. Both steps change the catalog only.
      `ALTER TABLE ${s}.audit_records ADD COLUMN version smallint NOT NULL DEFAULT 1`,
      `ALTER TABLE ${s}.audit_records ALTER COLUMN version DROP DEFAULT`,
      // The id of the audit key whose HMAC the record's hash is; NULL for a plain SHA-256.
      `ALTER TABLE ${s}.audit_records ADD COLUMN key_id text`,
    ],
    // The newest prune record of an account in one probe: a list checks the chain's start
    // against it. Built without blocking appends to a trail of any size.
    online: (database, s) =>
      createIndexOnline(database, s, 'audit_records_pruned', 'audit_records', "(account_id, sequence) WHERE action = 'audit.pruned'"),
    // The one narrowing is on purpose (SPEC §5.44 over §5.54's mixed fleet): a version
    // without keys must not append a plain record after keyed ones. Made before any
    // version of the package was released, so no released version writes unversioned
    // records; from the first release on, every version names its records' version.
    contract: {
      changes: ['not null audit_records.version'],
      reason: 'a record of unstated encoding would be a plain hash after keyed ones; no released version writes records without a version',
    },
  },
  {
    version: 13,
    name: 'the pepper of a rotation previous value',
    statements: (s) => [
      // SPEC §5.47: which pepper keyed previous_hash, so that the pepper report counts a
      // previous value in its overlap under it (it is never re-hashed). Set by each
      // rotation from the pepper_id it replaces; NULL when there is no previous hash, or
      // for a rotation before this version (counted as a pepper not known). Expand only:
      // an instance of the version before never reads it, and its rotations leave it
      // as it was (docs/security.md, "Rotating the pepper", says to finish an upgrade first).
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN previous_pepper_id text`,
    ],
  },
  {
    version: 14,
    name: 'restricted passcodes and account policies',
    statements: (s) => [
      // SPEC §5.48, §5.49, §5.51: what a passcode grants (NULL: every scope the host
      // declares), the CIDR ranges it may be used from (NULL or empty: any address), the
      // host's metadata (its JSON text, kept as written so that an audit record shows the
      // same text on every store; NULL: none) and its tags (NULL or empty: none). Expand
      // only: nullable columns without a default, which no instance of the version before
      // reads or writes (a passcode it makes grants every scope from any address); adding
      // them rewrites no row.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN scopes text[], ADD COLUMN allowed_addresses text[], ADD COLUMN metadata text, ADD COLUMN tags text[]`,
      `ALTER TABLE ${s}.user_passcodes ADD COLUMN scopes text[], ADD COLUMN allowed_addresses text[]`,
      // Usage over time counts the two new matched refusals (SPEC §5.41): the check widens
      // (NOT VALID: the rows it holds are within the narrower one, so none is re-read).
      `ALTER TABLE ${s}.usage_days DROP CONSTRAINT usage_days_outcome_check`,
      `ALTER TABLE ${s}.usage_days ADD CONSTRAINT usage_days_outcome_check
        CHECK (outcome IN ('succeeded', 'expired', 'disabled', 'revoked', 'wrong_partner', 'rotated_out', 'missing_scope', 'address')) NOT VALID`,
      // The verification lookup (version 10) returns the new columns, as the statement
      // does (statements.ts); an instance of the version before ignores the extra fields.
      findCredentialFunction(s, {
        account: 'p.scopes, p.allowed_addresses, p.metadata, p.tags',
        user: 'u.scopes, u.allowed_addresses, NULL::text AS metadata, NULL::text[] AS tags',
      }),
      // SPEC §5.52: an account's own policy (no row: the host's default applies), and its
      // one email saying how many passcodes broke a policy when it was set (the policy it
      // counted against, which may be the host's default), claimed like the leak emails
      // (token, claimed_until) and retried by the notifier's pass until notified_at is
      // set. Expand only: new tables, which no instance of the version before reads.
      `CREATE TABLE ${s}.account_policies (
        account_id text PRIMARY KEY,
        max_lifetime_days integer CHECK (max_lifetime_days BETWEEN 1 AND 3650),
        require_expiry boolean NOT NULL,
        require_description boolean NOT NULL
      )`,
      `CREATE TABLE ${s}.policy_notices (
        account_id text PRIMARY KEY,
        max_lifetime_days integer,
        require_expiry boolean NOT NULL,
        require_description boolean NOT NULL,
        count integer NOT NULL CHECK (count > 0),
        set_at bigint NOT NULL,
        notified_at bigint,
        token text,
        claimed_until bigint NOT NULL DEFAULT 0
      )`,
      `CREATE INDEX policy_notices_unsent ON ${s}.policy_notices (set_at, account_id) WHERE notified_at IS NULL`,
    ],
  },
  {
    version: 15,
    name: 'limits and credits per passcode',
    statements: (s) => [
      // SPEC §5.50: each credential's rate limit and credits as set, one jsonb column each
      // (NULL: none), read with the credential by the lookup. Expand only: nullable columns
      // without a default, which no instance of the version before reads or writes.
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN rate_limit jsonb, ADD COLUMN credits jsonb`,
      `ALTER TABLE ${s}.user_passcodes ADD COLUMN rate_limit jsonb, ADD COLUMN credits jsonb`,
      // The counters instances lease from (core/limit-counters.ts): the credits the store
      // still holds for one setting (epoch) and refill interval (period), whether that
      // balance's notices were made, and the slots leased in the current fixed window.
      // One row per credential, written by a lease or a return only: never per request.
      `CREATE TABLE ${s}.limit_counters (
        account_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('account', 'user')),
        key text NOT NULL,
        credit_epoch text,
        credit_period bigint NOT NULL DEFAULT 0,
        credit_balance bigint NOT NULL DEFAULT 0,
        low_sent boolean NOT NULL DEFAULT false,
        exhausted_sent boolean NOT NULL DEFAULT false,
        window_start bigint NOT NULL DEFAULT 0,
        window_ms bigint NOT NULL DEFAULT 0,
        window_used bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, kind, key)
      )`,
      // The low and exhausted notices (once per crossing) and their durable email, claimed
      // as the leak emails are (token, claimed_until) until notified_at is set.
      `CREATE TABLE ${s}.credit_notices (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('account', 'user')),
        key text NOT NULL,
        type text NOT NULL CHECK (type IN ('low', 'exhausted')),
        at bigint NOT NULL,
        balance bigint NOT NULL,
        full_amount bigint NOT NULL,
        next_refill_at bigint,
        name text,
        hint text,
        notified_at bigint,
        token text,
        claimed_until bigint NOT NULL DEFAULT 0
      )`,
      `CREATE INDEX credit_notices_unsent ON ${s}.credit_notices (at, id) WHERE notified_at IS NULL`,
      // Usage over time counts the day's 429s (SPEC §5.41, §5.50): the check widens, NOT VALID.
      `ALTER TABLE ${s}.usage_days DROP CONSTRAINT usage_days_outcome_check`,
      `ALTER TABLE ${s}.usage_days ADD CONSTRAINT usage_days_outcome_check
        CHECK (outcome IN ('succeeded', 'expired', 'disabled', 'revoked', 'wrong_partner', 'rotated_out', 'missing_scope', 'address',
                           'rate_limited', 'credits_exhausted')) NOT VALID`,
      // The verification lookup returns the limits too (statements.ts does the same).
      findCredentialFunction(s, {
        account: 'p.scopes, p.allowed_addresses, p.metadata, p.tags, p.rate_limit, p.credits',
        user: 'u.scopes, u.allowed_addresses, NULL::text AS metadata, NULL::text[] AS tags, u.rate_limit, u.credits',
      }),
      ...limitFunctions(s),
    ],
  },
  {
    version: 16,
    name: 'webhooks: endpoints, the event outbox and its trigger on the audit records',
    statements: webhookSchema,
  },
  {
    version: 17,
    name: 'webhooks: a leaner outbox trigger, the event foreign key and its index dropped',
    // The same events with less work in each change's transaction (issue 46); what keeps a
    // delivery with its event instead of the foreign key is in webhook-schema.ts.
    statements: leanerWebhookOutbox,
    contract: {
      changes: ['constraint webhook_deliveries.webhook_deliveries_event_id_fkey', 'index webhook_deliveries_event'],
      reason:
        'no version reads or needs them: every statement of every version that inserts a delivery inserts its event in the same statement, statement triggers on the events refuse what the foreign key refused on their side (an event deleted or its id changed under its deliveries), and the index served only that foreign key',
    },
  },
  {
    version: 18,
    name: 'webhooks: the credits.low and credits.exhausted events, stored by a trigger on the credit notices',
    statements: creditWebhookEvents,
  },
  {
    version: 19,
    name: 'account passcodes: whether the current value was reported leaked',
    statements: (s) => [
      // SPEC §5.45: a leak report that matched the current value sets it, a rotation clears
      // it, and a rotation of a leaked value keeps no previous value, though an enable
      // closed the leak mark. Expand only: a column with a default, which the version
      // before neither reads nor writes (its rows read as not leaked: a passcode enabled
      // after a leak before this version cannot be told apart).
      `ALTER TABLE ${s}.account_passcodes ADD COLUMN value_leaked boolean NOT NULL DEFAULT false`,
    ],
  },
]

/**
 * The verification lookup as a PL/pgSQL function (version 10; version 14 replaces it with
 * the columns of restricted passcodes, `extra`): the statement findCredentialByHash
 * (statements.ts) as three probes, one after the other.
 */
function findCredentialFunction(s: string, extra?: { readonly account: string; readonly user: string }): string {
  const accountExtra = extra === undefined ? '' : `, ${extra.account}`
  const userExtra = extra === undefined ? '' : `, ${extra.user}`
  // One account passcode probe, by its current or its previous hash.
  const accountProbe = (column: 'hash' | 'previous_hash'): string => `SELECT row_to_json(r)::text INTO answer FROM (
          SELECT 'account' AS kind, p.account_id, p.id, NULL::text AS user_id, p.name, p.name_key, p.hash, p.hint,
                 p.expiry_days, p.created_at, p.updated_at, p.expires_at, p.partners, p.previous_hash, p.previous_hash_ends_at,
                 p.last_used_at, p.last_used_partner, NULL::text AS ciphertext,
                 NULL::text AS validity_type, NULL::integer AS validity_days, NULL::bigint AS granted_at, NULL::bigint AS revoked_at,
                 p.pepper_id, p.disabled_at, p.description, coalesce(a.accepted_passcodes, 'account') AS accepted_passcodes${accountExtra}
          FROM ${s}.account_passcodes p LEFT JOIN ${s}.accounts a ON a.account_id = p.account_id
          WHERE p.${column} = $1
        ) AS r;`
  return `CREATE OR REPLACE FUNCTION ${s}.find_credential_by_hash(text) RETURNS text
        LANGUAGE plpgsql STABLE SECURITY INVOKER AS $lookup$
      DECLARE
        answer text;
      BEGIN
        ${accountProbe('hash')}
        IF answer IS NOT NULL THEN
          RETURN answer;
        END IF;
        ${accountProbe('previous_hash')}
        IF answer IS NOT NULL THEN
          RETURN answer;
        END IF;
        SELECT row_to_json(r)::text INTO answer FROM (
          SELECT 'user' AS kind, u.account_id, NULL::text AS id, u.user_id, NULL::text AS name, NULL::text AS name_key, u.hash, u.hint,
                 NULL::integer AS expiry_days, NULL::bigint AS created_at, NULL::bigint AS updated_at, u.expires_at, NULL::text[] AS partners,
                 NULL::text AS previous_hash, NULL::bigint AS previous_hash_ends_at, u.last_used_at, u.last_used_partner, u.ciphertext,
                 u.validity_type, u.validity_days, u.granted_at, u.revoked_at, u.pepper_id, NULL::bigint AS disabled_at,
                 NULL::text AS description, coalesce(a.accepted_passcodes, 'account') AS accepted_passcodes${userExtra}
          FROM ${s}.user_passcodes u LEFT JOIN ${s}.accounts a ON a.account_id = u.account_id
          WHERE u.hash = $1
        ) AS r;
        RETURN answer;
      END
      $lookup$`
}
