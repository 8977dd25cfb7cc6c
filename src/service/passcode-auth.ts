import type { Principal } from '../core/entities'
import type { AccountsApi } from './accounts'
import type { AuditApi } from './audit/audit-api'
import type { AuthOutcome, AuthRefusal, CredentialsInput } from './auth-outcome'
import type { ConnectInput, ConnectResult } from './connect/connect'
import type { PartnersApi } from './connect/partners-api'
import type { LeaksApi } from './leaks/report-leaks'
import type { NotificationReport } from './notifier/notification-report'
import type { PasscodesApi } from './passcodes/passcodes'
import type { PolicyApi } from './policy/policy-api'
import type { ScopesApi } from './scopes'
import type { UserPasscodesApi } from './user-passcodes/user-passcodes'
import type { PepperReport } from './verify/peppers'
import type { CredentialReader } from './verify/read-headers'
import type { ScopeRequirement } from './verify/restrictions'
import type { WebhooksApi } from './webhooks/webhooks-api'

/** A configured passcode-auth service: what {@link createPasscodeAuth} returns. */
export interface PasscodeAuth {
  /** Account passcodes: create, update, delete, list. */
  readonly passcodes: PasscodesApi
  /** User passcodes: grant, reset, revoke, reveal. */
  readonly userPasscodes: UserPasscodesApi
  /** Account settings: which passcodes it accepts, its policy (SPEC §5.52). */
  readonly accounts: AccountsApi & PolicyApi
  /** The operator's partner whitelist, read-only. */
  readonly partners: PartnersApi
  /** The scopes the host declares (SPEC §5.48), read-only: what the dashboard offers at create, edit and grant. */
  readonly scopes: ScopesApi
  /**
   * The audit trail (SPEC §5.40): list, export, verify, prune. Records are written by
   * the store in each management action's own transaction, never buffered, so
   * `close()` has none to flush.
   */
  readonly audit: AuditApi
  /** Leak reports (SPEC §5.42): labels reported tokens and disables or revokes the live ones. */
  readonly leaks: LeaksApi
  /**
   * Webhooks (SPEC §5.53): endpoints, their deliveries, and `dispatch()`, one delivery
   * pass (`startWebhookDispatcher` runs it on a schedule). Events are stored by the store
   * in each change's transaction; this sends them.
   */
  readonly webhooks: WebhooksApi
  /** Verifies credentials; resolves an outcome and never throws for bad credentials. */
  authenticate(input: CredentialsInput): Promise<AuthOutcome>
  /**
   * Verifies the credential headers of one request of any shape, through the same
   * pipeline as {@link PasscodeAuth.authenticate}: synchronously the principal itself
   * when the verification cache holds the credentials (and the limiter, if on, lets
   * the caller's address through), else a promise of the outcome, which never rejects
   * for bad credentials. The `reader` says how to read the request: two header reads
   * (plain property loads with a `headerRecord`) and, only when the `rateLimit` option
   * limits per address, the caller's address. This is what every `requirePasscode` of
   * the package calls; a host's own adapter calls it the same way.
   *
   * @example
   * ```ts
   * const reader = { header: (req: Request, name: string) => req.headers.get(name) ?? undefined, clientAddress: () => undefined }
   * const answer = auth.verifyRequest(request, reader)
   * const principal = answer instanceof Promise ? await answer.then((o) => (o.ok ? o.principal : undefined)) : answer
   * ```
   */
  verifyRequest<Source>(request: Source, reader: CredentialReader<Source>, required?: ScopeRequirement): Principal | Promise<AuthOutcome>
  /**
   * The scopes a route needs (SPEC §5.48), checked against the `scopes` option once, for
   * {@link PasscodeAuth.verifyRequest}'s third argument: every adapter's
   * `requirePasscode(auth, { scopes })` makes one when it is created. Throws an
   * `InvalidOptionsError` naming a scope the service does not declare. `undefined` for
   * `undefined` (no scope needed).
   *
   * @example
   * ```ts
   * const required = auth.requiredScopes(['events:write'])
   * const answer = auth.verifyRequest(request, reader, required)
   * ```
   */
  requiredScopes(scopes: readonly string[]): ScopeRequirement
  /** As above; `undefined` (a route that needs no scope) gives `undefined`. */
  requiredScopes(scopes: readonly string[] | undefined): ScopeRequirement | undefined
  /**
   * Whether a verified principal has every scope of `required` (SPEC §5.48): `undefined`,
   * or the refusal to answer, 403 `Missing scope: <name>` for the first one missing. For
   * guards that verify once and check scopes per handler; `verifyRequest` with `required`
   * does both at once.
   *
   * @example
   * ```ts
   * const refusal = auth.checkScopes(principal, auth.requiredScopes(['events:read']))
   * if (refusal) return new Response(JSON.stringify(refusal.body), { status: refusal.statusCode })
   * ```
   */
  checkScopes(principal: Principal, required: ScopeRequirement): AuthRefusal | undefined
  /** `GET /v1/connect` without HTTP: the status code and body to send. */
  connect(input: ConnectInput): Promise<ConnectResult>
  /**
   * One expiry-notifier pass (SPEC §5.14): emails the `recipients` of every account
   * passcode that entered the 30-day window or expired, once per expiry instant, and
   * reports what it sent, what failed (retried on the next pass) and what it skipped.
   * Throws a `ConfigurationError` without a `mailer` or `recipients` option, and a
   * storage error when the store fails. Run it on a schedule with `startExpiryNotifier`.
   */
  notifyExpirations(): Promise<NotificationReport>
  /**
   * How many stored hashes the current pepper and each older one of the `pepper` list
   * key, and how many were made by a pepper not known (SPEC §5.28): an older pepper can
   * be removed once its count and `unknown` are 0. The previous value of a rotation
   * counts under its own pepper until its overlap ends (it is never re-hashed, SPEC
   * §5.47). Throws a `ConfigurationError` when the store cannot count (no
   * `countHashesByPepper`).
   */
  pepperReport(): Promise<PepperReport>
  /**
   * Stops listening to store invalidations and every timer of this instance, and
   * writes the last uses it has not flushed yet (SPEC §5.27), retrying a failed write
   * once. Call it before closing the store; the store itself stays open. Idempotent:
   * a second call, or one made while the first runs, returns the same promise.
   */
  close(): Promise<void>
}
