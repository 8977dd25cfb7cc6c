/** The statements of the verification lookup, by hash: direct and through the schema's function. */
import { namedStatement, sqlType } from './named-statement'

/** The input of a lookup of one hash. */
const HASH = { hash: sqlType.text } as const
/** The input of a lookup of several hashes in one statement. */
const HASHES = { hashes: sqlType.textArray } as const

// The account branch of the lookup, in the column order the user branch repeats.
const ACCOUNT_BRANCH = `p.account_id, p.id, NULL::text AS user_id, p.name, p.name_key, p.hash, p.hint,
               p.expiry_days, p.created_at, p.updated_at, p.expires_at, p.partners, p.previous_hash, p.previous_hash_ends_at,
               p.last_used_at, p.last_used_partner, NULL::text AS ciphertext,
               NULL::text AS validity_type, NULL::integer AS validity_days, NULL::bigint AS granted_at, NULL::bigint AS revoked_at,
               p.pepper_id, p.disabled_at, p.description, p.scopes, p.allowed_addresses, p.metadata, p.tags, p.rate_limit, p.credits`

/** The verification lookup of the key `key` (a placeholder or a column), one row or none: see `findCredentialByHash` below. */
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

/** The verification lookups, for one schema (see `statements`). */
export const lookupStatements = (s: string) => ({
  // The verification lookup: one round trip, one unique-index probe per branch (an
  // account passcode's current hash, its previous hash during a rotation overlap,
  // a user passcode's hash), all in the statement's one snapshot.
  findCredentialByHash: namedStatement(HASH, ($) => credentialLookup(s, $.hash)),
  // The same lookup for several keys (`hashes`, a text array: one value's hashes under each
  // pepper, SPEC §5.34) in one statement, so one snapshot: a row that another instance
  // re-hashes from one of the keys to another is found under one of them, never missed
  // between two statements. A row per key that matched: `n`, its 1-based position in
  // the array, then the columns above.
  findCredentialsByHashes: namedStatement(
    HASHES,
    ($) => `
      SELECT t.n, m.*
      FROM unnest(${$.hashes}) WITH ORDINALITY AS t(k, n)
      CROSS JOIN LATERAL (${credentialLookup(s, 't.k')}) AS m`,
  ),
  // The same lookup through the schema's function (version 10, which repeats the
  // statement above: a change to it replaces the function in a new version), for
  // connections that cannot keep a named statement: the server plans only this call.
  // One text column, the row as JSON, or NULL when there is none.
  callFindCredentialByHash: namedStatement(HASH, ($) => `SELECT ${s}.find_credential_by_hash(${$.hash}) AS json`),
  // The same function for several keys in one statement (a text array): one row per
  // key, `n` its 1-based position in the array, `json` as above. Concurrent cache misses
  // share it (pgPreparedLookup: named on a direct connection, unnamed through a transaction pooler),
  // and it carries one value's hashes under each pepper. The function is STABLE, so each of
  // its calls reads the snapshot of this statement: every key, one snapshot.
  callFindCredentialsByHashes: namedStatement(
    HASHES,
    ($) => `SELECT t.n, ${s}.find_credential_by_hash(t.k) AS json FROM unnest(${$.hashes}) WITH ORDINALITY AS t(k, n)`,
  ),
})
