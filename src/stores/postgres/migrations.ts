/** One versioned schema change: statements run in order, in one transaction. */
export interface Migration {
  readonly version: number
  readonly name: string
  /** Single statements (PGlite's extended protocol takes one at a time); `s` is the schema. */
  readonly statements: (s: string) => readonly string[]
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
]
