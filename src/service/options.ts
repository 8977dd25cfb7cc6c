import { z } from 'zod'
import { InvalidOptionsError } from '../core/errors'
import { ownOptions, printableName, type OptionGroups } from '../core/own-data'
import { DEFAULT_PASSCODE_PREFIX, isValidPrefix } from '../core/passcode-format'
import { MAX_ACCOUNT_PASSCODES } from '../core/rules'
import { EXPIRING_SOON_DAYS } from '../core/status'
import type { Clock } from '../ports/clock'
import type { Mailer } from '../ports/mailer'
import type { PartnerRegistry } from '../ports/partner-registry'
import type { PasscodeStore } from '../ports/passcode-store'
import type { NotificationRecipients } from '../ports/recipients'
import { cacheSchema, pepperSchema, scopesSchema } from './verify/options'
import { policySchema } from './policy/options'
import type { AccountPolicyInput } from './input'
import type { WebhookSender } from '../ports/webhook-sender'
import type { AuditEvent } from './events'
import { rateLimitSchema, type RateLimitOptions } from './limiter/options'
import type { NotificationTemplate } from './notifier/notification-messages'
import { mailerSchema, notifierSchema, recipientsSchema, templatesSchema } from './notifier/options'
import { functionOption, hasMethods, noOptions, objectWithMethods } from './option-checks'
import type { SameOptions } from './same-options'
import type { TelemetryOptions } from './telemetry/otel-api'
import { telemetrySchema } from './telemetry/options'
import { leaksSchema } from './leaks/options'
import { passcodeLimitsSchema } from './limits/options'
import { usageSchema } from './usage/options'
import { webhooksSchema } from './webhooks/options'
import { encryptionKeysSchema, type EncryptionKey } from './user-passcodes/options'
import { auditKeysSchema, type AuditKey } from './audit/options'

export type { EncryptionKey } from './user-passcodes/options'
export type { AuditKey } from './audit/options'

/** Options of {@link createPasscodeAuth}. */
export interface PasscodeAuthOptions {
  /** Where passcodes live. */
  store: PasscodeStore
  /** The operator's partner whitelist: names, or a registry. @default [] (no partner) */
  partners?: readonly string[] | PartnerRegistry
  /** Sends expiry notifications; the notifier needs it. */
  mailer?: Mailer
  /** Email addresses that receive an account's expiry notifications; the notifier needs it. */
  recipients?: NotificationRecipients
  /** Replaces the built-in email of either notification kind. @default defaultNotificationTemplates */
  templates?: {
    /** The "expires in N days" email. @default defaultNotificationTemplates.expiring_soon */
    expiring_soon?: NotificationTemplate
    /** The "has expired" email. @default defaultNotificationTemplates.expired */
    expired?: NotificationTemplate
  }
  /**
   * Tuning of `notifyExpirations`. `leaseMs` must exceed `sendTimeoutMs`: a send starts
   * only while its claim has at least `sendTimeoutMs` of lease left, so no other runner
   * takes a claim over while its email is still on the way.
   * @default { leaseMs: 300000, batchSize: 50, sendTimeoutMs: 30000 }
   */
  notifier?: {
    /** How long a runner holds a claimed notification before another may take it over, in ms. @default 300000 */
    leaseMs?: number
    /** Notifications claimed per store call. @default 50 */
    batchSize?: number
    /** Longest wait for one send, in ms. @default 30000 */
    sendTimeoutMs?: number
  }
  /** Returns the current time. @default () => new Date() */
  clock?: Clock
  /**
   * Keys for user passcodes at rest. The first encrypts; all decrypt (matched by
   * `kid`). Granting user passcodes without keys fails with a ConfigurationError.
   * Also as text, `<key id>:<key>` entries separated by commas (each key 32 bytes in
   * base64url), the form of the `passcode-auth` command's `PASSCODE_AUTH_ENCRYPTION_KEYS`:
   * `encryptionKeys: process.env.PASSCODE_AUTH_ENCRYPTION_KEYS` (unset: no keys; `undefined`
   * is the same as leaving the option out, also under `exactOptionalPropertyTypes`).
   */
  encryptionKeys?: readonly EncryptionKey[] | string | undefined
  /**
   * Server secret (≥ 16 bytes) that keys the passcode hash (HMAC-SHA256), or several
   * while one replaces another, at most 8 in all, each once:
   * - a list (SPEC §5.28): the first keys new hashes, every one verifies, and a passcode
   *   that verifies under a later one is re-hashed under the first (the later ones are
   *   `previous` peppers below);
   * - `{ current, next, previous }` for a rolling change across a fleet (SPEC §5.34):
   *   `current` keys new hashes; each `previous` pepper verifies and a passcode that
   *   verifies under it is re-hashed to `current`; each `next` pepper verifies only and
   *   is never re-hashed to or away from, so instances one step apart in a rolling
   *   deploy both accept every passcode (docs/security.md, "Rotating the pepper").
   *
   * `null` stands for "no pepper" (plain SHA-256), so a deployment that ran without one
   * adds one with `[newPepper, null]`. `undefined` (`pepper: process.env.PASSCODE_AUTH_PEPPER`
   * with the variable unset, also under `exactOptionalPropertyTypes`) is the same as
   * leaving it out. @default none: SHA-256
   */
  pepper?:
    | undefined
    | string
    | Uint8Array
    | readonly (string | Uint8Array | null)[]
    | {
        /** Keys new hashes; `null` is plain SHA-256. */
        current: string | Uint8Array | null
        /** Peppers that verify only: the one a rolling change is about to make current. None when left out. */
        next?: readonly (string | Uint8Array | null)[]
        /** Peppers that verify and whose hashes are re-hashed to `current` on use. None when left out. */
        previous?: readonly (string | Uint8Array | null)[]
      }
  /** Prefix of generated passcodes. @default 'psc' */
  prefix?: string
  /** Rule limits. @default { maxAccountPasscodes: 100, expiringSoonDays: 30 } */
  limits?: {
    /** Passcodes per account, expired ones included (SPEC §2). @default 100 */
    maxAccountPasscodes?: number
    /** Days before expiry from which a passcode is `expiring_soon` and its email is sent. @default 30 */
    expiringSoonDays?: number
  }
  /**
   * Verification cache, or `false` to turn it off. `refusals` is the separate cache
   * of refused well-formed passcodes (unknown, deleted, revoked, expired, another
   * account's, not accepted), so that a caller retrying one costs no store read; each
   * change to an account's credentials or settings drops its entries at once.
   * @default { ttlMs: 30000, maxEntries: 10000, refusals: { ttlMs: 10000, maxEntries: 10000 } }
   */
  cache?:
    | false
    | {
        /** How long a verified credential is remembered, in ms. @default 30000 */
        ttlMs?: number
        /** Most credentials remembered; the oldest go first. @default 10000 */
        maxEntries?: number
        /** The cache of refused passcodes, or `false` to turn it off. */
        refusals?:
          | false
          | {
              /** How long a refusal is remembered, in ms. @default 10000 */
              ttlMs?: number
              /** Most refusals remembered. @default 10000 */
              maxEntries?: number
            }
      }
  /** Deadline for storage reads during verification; past it the answer is 504. @default 2000 */
  timeoutMs?: number
  /** Whether an edit may give an expired passcode a new expiry. @default false */
  allowReactivation?: boolean
  /**
   * Whether answers authenticated by a passcode in its last `limits.expiringSoonDays`
   * days carry the `Sunset` header (RFC 8594) with its expiry instant, on
   * `GET /v1/connect` and on protected routes alike, so that partners learn of it from
   * their own traffic. `false` turns it off for this host.
   * @default true
   */
  sunsetHeader?: boolean
  /**
   * Brute-force limiter: failed attempts (400 and 401 refusals) per client address
   * and per account ID in a sliding window; past the limit the answer is 429 with
   * `Retry-After`, before any credential check. `{}` turns it on with the defaults.
   * @default false (off)
   */
  rateLimit?: false | RateLimitOptions
  /**
   * Last-use tracking (SPEC §5.27): each instance batches the passcodes it saw
   * authenticate and writes them in one statement at most once per `flushIntervalMs`
   * (and on `close()`), so a request never waits for a usage write. `false` turns it
   * off (views then show the last use recorded so far), and usage over time with it.
   * The same flush adds this instance's daily counts per passcode (successes, matched
   * refusals, connect per partner: SPEC §5.41) to the store's, which keeps
   * `retentionDays` UTC days of them.
   * @default { flushIntervalMs: 60000, retentionDays: 90 }
   */
  usage?:
    | false
    | {
        /** Time between two flushes of the recorded uses, in ms. @default 60000 */
        flushIntervalMs?: number
        /** How many UTC days of daily usage counts the store keeps (1 to 3660). @default 90 */
        retentionDays?: number
      }
  /**
   * The response to leak reports (SPEC §5.42, `auth.leaks.report`): `action` is what a
   * confirmed leak of an account passcode does, `disable` (it keeps its name, binding
   * and expiry; an admin can enable it) or `revoke` (it is deleted). A leaked user
   * passcode is always revoked: user passcodes have no disabled state.
   * @default { action: 'disable' }
   */
  leaks?: {
    /** What a confirmed leak of an account passcode does. @default 'disable' */
    action?: 'disable' | 'revoke'
  }
  /**
   * The scopes the host's routes may need (SPEC §5.48), name → description, at most
   * 100: `{ 'events:read': 'Read events', 'events:write': 'Send events' }`. A passcode
   * grants all of them or a listed few; a route states the ones it needs in its guard
   * (`requirePasscode(auth, { scopes: ['events:write'] })`). A name is a lower-case
   * letter, then up to 63 of `a-z 0-9 _ . : -`. A scope no longer declared grants nothing.
   * @default {} (none)
   */
  scopes?: Readonly<Record<string, string>>
  /**
   * Every account's policy unless its admins set their own (SPEC §5.52): the longest a
   * passcode may live, and whether an expiry or a description is required.
   * @default { maxLifetimeDays: null, requireExpiry: false, requireDescription: false } (every rule off)
   */
  policy?: AccountPolicyInput
  /**
   * Webhooks (SPEC §5.53, `auth.webhooks`): who may receive them and how deliveries run.
   * An endpoint's URL that resolves to a loopback, private, link-local, shared (CGNAT),
   * unique-local, multicast, reserved or metadata address is refused, at registration and
   * at each connection, unless `allowPrivateAddresses` (tests, receivers inside your
   * network). `startWebhookDispatcher(auth)` runs the deliveries.
   * @default { allowPrivateAddresses: false, batchSize: 100, concurrency: 50, leaseMs: 60000 }
   */
  webhooks?: {
    /** Lets endpoints resolve to loopback, private and the other refused addresses. @default false */
    allowPrivateAddresses?: boolean
    /** How endpoints are reached. @default the Node sender of `passcode-auth` (none on other runtimes) */
    sender?: WebhookSender
    /** Deliveries claimed per store call by a pass. @default 100 */
    batchSize?: number
    /** Attempts in flight at once in a pass. @default 50 */
    concurrency?: number
    /** How long a claimed attempt stays with an instance before another may take it over, in ms (at least 20 000: an attempt lasts up to 15 s). @default 60000 */
    leaseMs?: number
  }
  /**
   * Keys of the audit trail's chain (SPEC §5.44): each record's hash is an HMAC-SHA256
   * under the first key, made in this process (the key never reaches the database), with
   * the key's id stored beside it; every key verifies the records it signed, so a new key
   * goes first and the old ones stay listed while their records are kept. Without keys,
   * records carry a plain SHA-256, which whoever can write the database can recompute;
   * with `NODE_ENV=production` that is reported once through `onEvent`
   * (`config.no_audit_key`). @default none: plain SHA-256
   */
  auditKeys?: readonly AuditKey[]
  /**
   * Per-passcode rate limits and credits (SPEC §5.50, docs/limits.md): when the
   * `credits.low` event and email go out, and how instances lease from the store.
   * @default { lowCreditsRatio: 0.1, idleReturnMs: 2000, leaseTargetMs: 1000 }
   */
  passcodeLimits?: {
    /** The low-credits line as a fraction (0 to 1) of the full amount (the refill amount, or the credits as set). @default 0.1 */
    lowCreditsRatio?: number
    /** A credential unused this long (ms) gives back what this instance holds of it (50 to 600 000). @default 2000 */
    idleReturnMs?: number
    /** How long a lease should last at the rate seen, in ms (10 to 60 000): larger, fewer store calls and more held per instance. @default 1000 */
    leaseTargetMs?: number
  }
  /** Audit hook; receives no secret values. Errors it throws are swallowed. */
  onEvent?: (event: AuditEvent) => void | Promise<void>
  /**
   * OpenTelemetry: spans of `authenticate`, `connect` and storage calls, and metrics
   * (docs/observability.md). Pass the tracer and meter of your own
   * `@opentelemetry/api`; passcode-auth loads nothing of OpenTelemetry itself.
   * @default none
   */
  telemetry?: TelemetryOptions
}

const storeSchema = objectWithMethods<PasscodeStore>(
  'a PasscodeStore (for example memoryStore() or postgresStore(db))',
  'findCredentialByHash',
  'createAccountPasscode',
)

const PARTNERS_EXPECTED = "must be an array of partner names, like ['acme'], or a PartnerRegistry (an object with isWhitelisted(name))"
const partnersSchema = z.union(
  [
    z.array(
      z
        .string({ error: 'must be a partner name (a string)' })
        .trim()
        .min(1, 'partner names must not be blank')
        .max(128, 'partner names are at most 128 characters'),
    ),
    z.custom<PartnerRegistry>((value) => hasMethods(value, 'isWhitelisted'), { message: PARTNERS_EXPECTED }),
  ],
  { error: PARTNERS_EXPECTED },
)

const limitsSchema = z
  .object({
    maxAccountPasscodes: z.number().int().min(1).max(MAX_ACCOUNT_PASSCODES).default(MAX_ACCOUNT_PASSCODES),
    expiringSoonDays: z.number().int().min(1).max(365).default(EXPIRING_SOON_DAYS),
  })
  .strict()

// Each feature owns the schema of its options (and states their defaults once); this
// object only composes them, with the few options that belong to the service as a whole.
// An object option left out is parsed from `{}` (`prefault(noOptions)`), so its fields' own
// defaults fill it.
export const optionsSchema = z
  .object({
    store: storeSchema,
    partners: partnersSchema.default([]),
    mailer: mailerSchema.optional(),
    recipients: recipientsSchema.optional(),
    templates: templatesSchema,
    notifier: notifierSchema,
    clock: functionOption<Clock>('a function returning a Date').optional(),
    encryptionKeys: encryptionKeysSchema.optional(),
    auditKeys: auditKeysSchema.optional(),
    pepper: pepperSchema.optional(),
    prefix: z
      .string()
      .refine(isValidPrefix, { message: 'must be 2 to 16 characters of [a-z0-9] starting with a letter' })
      .default(DEFAULT_PASSCODE_PREFIX),
    limits: limitsSchema.prefault(noOptions),
    cache: cacheSchema.prefault(noOptions),
    timeoutMs: z.number().int().min(1).max(600_000).default(2_000),
    allowReactivation: z.boolean().default(false),
    sunsetHeader: z.boolean().default(true),
    rateLimit: rateLimitSchema.default(false),
    usage: usageSchema.prefault(noOptions),
    leaks: leaksSchema.prefault(noOptions),
    scopes: scopesSchema.prefault(noOptions),
    policy: policySchema.prefault(noOptions),
    webhooks: webhooksSchema.prefault(noOptions),
    passcodeLimits: passcodeLimitsSchema.prefault(noOptions),
    onEvent: functionOption<(event: AuditEvent) => void | Promise<void>>('a function').optional(),
    telemetry: telemetrySchema.optional(),
  })
  .strict()

// The documented interface stays the source of its TSDoc; the compiler checks that the
// composed schema accepts exactly what it documents, at every depth (see SameOptions).
const schemaAcceptsExactlyTheDocumentedOptions: SameOptions<PasscodeAuthOptions, z.input<typeof optionsSchema>> = true
// eslint-disable-next-line @typescript-eslint/no-meaningless-void-operator -- the constant exists for its type check only: this marks it used
void schemaAcceptsExactlyTheDocumentedOptions

/** Options after validation and defaults. */
export type ResolvedOptions = z.output<typeof optionsSchema>

/**
 * The options objects nested in the options, read like the options themselves: own
 * properties only (see `ownOptions`). Their other values (the store, the mailer, a
 * tracer) are the host's objects, kept as they are.
 */
const OPTION_GROUPS: OptionGroups = {
  templates: {},
  notifier: {},
  limits: {},
  cache: { refusals: {} },
  rateLimit: {},
  usage: {},
  leaks: {},
  scopes: {},
  policy: {},
  webhooks: {},
  passcodeLimits: {},
  telemetry: {},
  pepper: {},
}

/**
 * Validates options once, at construction. The error names the first bad option and
 * never echoes its value (it may be a secret). Only the options' own properties are
 * read, and the result has no prototype: a polluted `Object.prototype` neither adds
 * an option nor fills one left out, and a `__proto__` key is an unknown option.
 */
export function resolveOptions(options: unknown): ResolvedOptions {
  const result = optionsSchema.safeParse(ownOptions(options, OPTION_GROUPS))
  if (result.success) return ownOptions(result.data, OPTION_GROUPS)
  const issue = deepestIssue(result.error.issues[0]!)
  const path = issue.path.length > 0 ? issue.path.map((part) => printableName(String(part))).join('.') : 'options'
  const message = issue.code === 'unrecognized_keys' ? `unknown option ${issue.keys.map((k) => `\`${printableName(k)}\``).join(', ')}` : issue.message
  throw new InvalidOptionsError(path, message)
}

type Issue = z.core.$ZodIssue

/**
 * For a failed union, the branch issue with the longest path names the option best; at
 * the same depth, one that is not about the value's type (the value had that branch's
 * type, so that branch says what is wrong with it).
 */
function deepestIssue(issue: Issue, prefix: PropertyKey[] = []): Issue {
  const path = [...prefix, ...issue.path]
  if (issue.code !== 'invalid_union') return { ...issue, path }
  const rank = (candidate: Issue) => candidate.path.length * 2 + (candidate.code === 'invalid_type' || candidate.code === 'invalid_union' ? 0 : 1)
  let best: Issue = { ...issue, path }
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const candidate = deepestIssue(inner, path)
      if (rank(candidate) > rank(best)) best = candidate
    }
  }
  return best
}
