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
]
