import type { CONNECT_SERVER_RULES } from '../../scripts/openapi'
import type { ServerRule } from '../../scripts/management-openapi'
import type { operations as ConnectOperations } from './openapi-types/connect'
import type { operations as ManagementOperations } from './openapi-types/management'

/**
 * The one table of requests the contract test (openapi-contract.test.ts) sends to each
 * operation of the OpenAPI documents: valid ones, typed by the client generated from the
 * document (so `npm run typecheck` refuses a valid case the document would not take), and
 * invalid ones, written as they go on the wire. The test adds, for every operation, the
 * failures any operation can meet (no session, a session resolver that throws, a store
 * that fails or times out, a cross-site write, a body too large, not JSON or of another
 * media type) from the operation's first valid case. A new operation needs its cases
 * here: the test fails for an operation of a document without any, or without a success.
 *
 * A 400 whose request the document's schemas accept names the rule the document says the
 * schemas cannot state (`serverRule`); every other 400 must break a request schema.
 */

/** Who calls the management API: a session of the test host (cookie), or nobody. */
export type Caller = 'admin' | 'member' | 'nobody'

/** What the fixture made through the API before the cases run: the IDs the cases use. */
export interface ManagementFixture {
  /** A passcode bound to Acme, 90 days. */
  readonly acme: string
  /** A passcode the delete case removes. */
  readonly doomed: string
  /** An expired passcode. */
  readonly expired: string
  /** The `nextCursor` of the first page of the audit trail with `limit=2`. */
  readonly cursor: string
  /** A webhook endpoint, with deliveries of test events. */
  readonly endpoint: string
  /** A webhook endpoint the delete case removes. */
  readonly doomedEndpoint: string
  /** A delivery of `endpoint`. */
  readonly delivery: string
  /** The `nextCursor` of the first page of deliveries with `limit=1`. */
  readonly deliveryCursor: string
}

type JsonBody<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never
type Query<Operation> = Operation extends { parameters: { query?: infer Parameters } } ? NonNullable<Parameters> : never
type PathParameters<Operation> = Operation extends { parameters: { path: infer Parameters } } ? Parameters : never

/** One request to a management operation and the status it must get. */
export interface ManagementCase<Operation> {
  /** What it tries. */
  readonly name: string
  readonly status: number
  /** The error code of a failure, when the case is about one code. */
  readonly code?: string
  /** @default 'admin' */
  readonly as?: Caller
  readonly path?: (fixture: ManagementFixture) => PathParameters<Operation>
  readonly query?: (fixture: ManagementFixture) => Query<Operation>
  /** A query string as sent, for what the client's types do not allow. */
  readonly rawQuery?: string
  readonly body?: JsonBody<Operation>
  /** A JSON body the client's types do not allow. */
  readonly invalidBody?: unknown
  /** A refused request the schemas accept: the rule of the document that refuses it. */
  readonly serverRule?: ServerRule
  /**
   * Sent to a host whose account's audit trail it cannot vouch for (SPEC §5.44): a record
   * keyed under an audit key the host was not given.
   */
  readonly unvouchedTrail?: true
  /** Sent to a host whose account already has the maximum of webhook endpoints (20). */
  readonly webhooksFull?: true
}

const id = (pick: 'acme' | 'doomed' | 'expired') => (fixture: ManagementFixture) => ({ id: fixture[pick] })
const endpointId = (pick: 'endpoint' | 'doomedEndpoint') => (fixture: ManagementFixture) => ({ endpointId: fixture[pick] })
const unknownEndpoint = () => ({ endpointId: 'wh_nothere' })
const spacedEndpoint = () => ({ endpointId: 'wh 1' })
/** A public address as a literal: registration checks it without a resolver, and no case sends to it. */
const HOOK_URL = 'https://93.184.215.14/hooks/passcodes'
const passcodeId = (value: string) => () => ({ id: value })
const userId = (value: string) => () => ({ userId: value })

const NAME_65 = 'n'.repeat(65)
// U+0958 is 1 character as sent and 2 in NFC (a composition exclusion): 64 of them are 128 characters for the server.
const NAME_LONGER_IN_NFC = '\u0958'.repeat(64)

/** Every operation of docs/management-openapi.json, by operationId. */
export const MANAGEMENT_CASES: { readonly [Id in keyof ManagementOperations]: readonly ManagementCase<ManagementOperations[Id]>[] } = {
  listPasscodes: [
    { name: 'an admin lists', status: 200 },
    { name: 'any member lists', status: 200, as: 'member' },
    { name: 'filtered by two tags and a text', status: 200, query: () => ({ tags: ['billing', 'eu'], search: 'acme' }) },
    { name: 'a tag of 33 characters', status: 400, query: () => ({ tags: ['t'.repeat(33)] }) },
    { name: 'search twice', status: 400, rawQuery: 'search=a&search=b' },
    { name: 'fewest credits left first (SPEC 5.50)', status: 200, query: () => ({ sortBy: 'creditsRemaining' }) },
    { name: 'an unknown order', status: 400, rawQuery: 'sortBy=credits' },
  ],
  createPasscode: [
    {
      name: 'bound to a partner, with a description',
      status: 201,
      body: { name: 'Nightly export', expiry: 30, partners: ['Acme'], description: 'For the\nnightly export' },
    },
    {
      name: 'forever, a name with surrounding spaces',
      status: 201,
      body: { name: '  Padded  ', expiry: 'forever', partners: null, description: null },
    },
    {
      name: 'with a rate limit and monthly credits',
      status: 201,
      body: {
        name: 'Metered',
        expiry: 30,
        rateLimit: { max: 10, windowSeconds: 1 },
        credits: { remaining: 1_000, refill: { amount: 1_000, interval: 'month' } },
      },
    },
    { name: 'fractional credits', status: 400, body: { name: 'Metered 2', expiry: 30, credits: { remaining: 1.5 } } },
    { name: 'a rate window of 0', status: 400, body: { name: 'Metered 2', expiry: 30, rateLimit: { max: 1, windowSeconds: 0 } } },
    {
      name: 'a refill without an amount',
      status: 400,
      invalidBody: { name: 'Metered 2', expiry: 30, credits: { remaining: 1, refill: { interval: 'day' } } },
    },
    { name: 'a 65-character name', status: 400, body: { name: NAME_65, expiry: 1 } },
    { name: 'a blank name', status: 400, body: { name: '   ', expiry: 1 } },
    { name: 'a zero-width character in the name', status: 400, body: { name: 'Acme\u200B', expiry: 1 } },
    { name: 'a control character in the name', status: 400, body: { name: 'Bell\u0007', expiry: 1 } },
    { name: 'a bidi override in the name', status: 400, body: { name: 'Acme\u202Eevil', expiry: 1 } },
    { name: 'a tab inside the name', status: 400, body: { name: 'Tab\there', expiry: 1 } },
    {
      name: 'a name longer than 64 characters once in NFC',
      status: 400,
      body: { name: NAME_LONGER_IN_NFC, expiry: 1 },
      serverRule: 'normalisedLength',
    },
    { name: 'no name', status: 400, invalidBody: { expiry: 1 } },
    { name: 'a name that is a number', status: 400, invalidBody: { name: 5, expiry: 1 } },
    { name: 'expiry 0', status: 400, body: { name: 'Zero', expiry: 0 } },
    { name: 'expiry 3651', status: 400, body: { name: 'Long', expiry: 3651 } },
    { name: 'expiry 1.5', status: 400, body: { name: 'Half', expiry: 1.5 } },
    { name: 'expiry "never"', status: 400, invalidBody: { name: 'Never', expiry: 'never' } },
    { name: 'a 501-character description', status: 400, body: { name: 'Described', expiry: 1, description: 'd'.repeat(501) } },
    { name: 'a tab in the description', status: 400, body: { name: 'Described', expiry: 1, description: 'a\tb' } },
    { name: 'an empty partner list', status: 400, body: { name: 'Unbound', expiry: 1, partners: [] } },
    { name: 'a 129-character partner name', status: 400, body: { name: 'Bound', expiry: 1, partners: ['p'.repeat(129)] } },
    { name: 'a blank partner name', status: 400, body: { name: 'Bound', expiry: 1, partners: ['  '] } },
    { name: 'a control character in a partner name', status: 400, body: { name: 'Bound', expiry: 1, partners: ['Ac\u0000me'] } },
    { name: 'a partner not whitelisted', status: 400, body: { name: 'Bound', expiry: 1, partners: ['Initech'] }, serverRule: 'whitelistedPartners' },
    {
      name: 'restricted: scopes, address ranges, metadata and tags (SPEC 5.48-5.51)',
      status: 201,
      body: {
        name: 'Partner read-only',
        expiry: 30,
        scopes: ['events:read'],
        allowedAddresses: ['203.0.113.0/24', '2001:db8::/32'],
        metadata: { plan: 'gold', customerId: 42 },
        tags: ['Partner', 'prod'],
      },
    },
    { name: 'no scope at all', status: 201, body: { name: 'No scope', expiry: 30, scopes: [] } },
    { name: 'a scope not declared', status: 400, body: { name: 'Scoped', expiry: 1, scopes: ['events:delete'] }, serverRule: 'declaredScopes' },
    { name: 'a scope name in capitals', status: 400, body: { name: 'Scoped', expiry: 1, scopes: ['Events'] } },
    {
      name: 'a range with host bits set',
      status: 400,
      body: { name: 'Ranged', expiry: 1, allowedAddresses: ['203.0.113.7/24'] },
      serverRule: 'cidrRanges',
    },
    { name: 'a malformed range', status: 400, body: { name: 'Ranged', expiry: 1, allowedAddresses: ['203.0.113'] }, serverRule: 'cidrRanges' },
    {
      name: '51 ranges',
      status: 400,
      body: { name: 'Ranged', expiry: 1, allowedAddresses: Array.from({ length: 51 }, (_, i) => `10.${i}.0.0/16`) },
    },
    { name: 'metadata that is a list', status: 400, invalidBody: { name: 'Meta', expiry: 1, metadata: ['a'] } },
    { name: 'metadata over 1 KiB', status: 400, body: { name: 'Meta', expiry: 1, metadata: { text: 'x'.repeat(1020) } }, serverRule: 'metadataSize' },
    { name: 'a 33-character tag', status: 400, body: { name: 'Tagged', expiry: 1, tags: ['t'.repeat(33)] } },
    { name: 'an unknown field', status: 400, invalidBody: { name: 'Coloured', expiry: 1, colour: 'red' } },
    { name: 'a body that is a list', status: 400, invalidBody: [{ name: 'Listed', expiry: 1 }] },
    { name: 'a member may not create', status: 403, as: 'member', body: { name: 'Member', expiry: 1 } },
    { name: 'a name taken, in other case', status: 409, code: 'ERR_DUPLICATE_NAME', body: { name: 'ACME SYNC', expiry: 1 } },
  ],
  updatePasscode: [
    { name: 'a new name', status: 200, path: id('acme'), body: { name: 'Acme sync 2' } },
    { name: 'a new expiry, unbound, a description', status: 200, path: id('acme'), body: { expiry: 60, partners: null, description: 'Edited' } },
    { name: 'credits set, the rate limit removed', status: 200, path: id('acme'), body: { credits: { remaining: 5 }, rateLimit: null } },
    { name: 'credits over 10^12', status: 400, path: id('acme'), body: { credits: { remaining: 10 ** 12 + 1 } } },
    { name: 'nothing to change', status: 400, path: id('acme'), body: {} },
    {
      name: 'restricted to one scope and a range',
      status: 200,
      path: id('acme'),
      body: { scopes: ['events:write'], allowedAddresses: ['192.0.2.0/24'] },
    },
    {
      name: 'every scope again, any address, no metadata, no tags',
      status: 200,
      path: id('acme'),
      body: { scopes: null, allowedAddresses: [], metadata: null, tags: [] },
    },
    { name: 'a scope not declared', status: 400, path: id('acme'), body: { scopes: ['reports:read'] }, serverRule: 'declaredScopes' },
    { name: 'a 65-character name', status: 400, path: id('acme'), body: { name: NAME_65 } },
    { name: 'an unknown field', status: 400, path: id('acme'), invalidBody: { colour: 'red' } },
    { name: 'an empty ID (PATCH /passcodes/)', status: 400, path: passcodeId(''), body: { name: 'Renamed' } },
    { name: 'an ID with a space', status: 400, path: passcodeId('a b'), body: { name: 'Renamed' } },
    { name: 'a partner not whitelisted', status: 400, path: id('acme'), body: { partners: ['Initech'] }, serverRule: 'whitelistedPartners' },
    { name: 'no such passcode', status: 404, path: passcodeId('nope'), body: { name: 'Renamed' } },
    { name: 'a member may not edit', status: 403, as: 'member', path: id('acme'), body: { name: 'Member' } },
    { name: 'a name taken', status: 409, code: 'ERR_DUPLICATE_NAME', path: id('acme'), body: { name: 'doomed' } },
    { name: 'an expired passcode given days again', status: 409, code: 'ERR_REACTIVATION_REFUSED', path: id('expired'), body: { expiry: 10 } },
  ],
  deletePasscode: [
    { name: 'deleted', status: 204, path: id('doomed') },
    { name: 'an empty ID (DELETE /passcodes/)', status: 400, path: passcodeId('') },
    { name: 'an ID too long', status: 400, path: passcodeId('i'.repeat(257)) },
    { name: 'deleted already', status: 404, path: id('doomed') },
    { name: 'a member may not delete', status: 403, as: 'member', path: id('acme') },
  ],
  rotatePasscode: [
    { name: 'an hour of overlap', status: 201, path: id('acme'), body: { overlapMinutes: 60 } },
    { name: 'overlap -1', status: 400, path: id('acme'), body: { overlapMinutes: -1 } },
    { name: 'overlap past 7 days', status: 400, path: id('acme'), body: { overlapMinutes: 10_081 } },
    { name: 'overlap as text', status: 400, path: id('acme'), invalidBody: { overlapMinutes: '60' } },
    { name: 'no overlap given', status: 400, path: id('acme'), body: {}, serverRule: 'leakedOverlap' },
    { name: 'an empty ID', status: 400, path: passcodeId(''), body: { overlapMinutes: 0 } },
    { name: 'no such passcode', status: 404, path: passcodeId('nope'), body: { overlapMinutes: 0 } },
    { name: 'a member may not rotate', status: 403, as: 'member', path: id('acme'), body: { overlapMinutes: 0 } },
    { name: 'an expired passcode', status: 409, code: 'ERR_ROTATION_REFUSED', path: id('expired'), body: { overlapMinutes: 0 } },
  ],
  getPasscodeUsage: [
    { name: 'a member reads the days', status: 200, as: 'member', path: id('acme') },
    { name: 'an empty ID', status: 400, path: passcodeId('') },
    { name: 'no such passcode', status: 404, path: passcodeId('nope') },
  ],
  disablePasscode: [
    { name: 'disabled', status: 200, path: id('acme') },
    { name: 'disabled already', status: 200, path: id('acme') },
    { name: 'an empty ID', status: 400, path: passcodeId('') },
    { name: 'no such passcode', status: 404, path: passcodeId('nope') },
    { name: 'a member may not disable', status: 403, as: 'member', path: id('acme') },
  ],
  enablePasscode: [
    { name: 'enabled', status: 200, path: id('acme') },
    { name: 'an empty ID', status: 400, path: passcodeId('') },
    { name: 'no such passcode', status: 404, path: passcodeId('nope') },
    { name: 'a member may not enable', status: 403, as: 'member', path: id('acme') },
  ],
  listUsers: [
    { name: 'an admin lists', status: 200 },
    { name: 'any member lists', status: 200, as: 'member' },
  ],
  getUserPasscode: [
    { name: 'a granted user', status: 200, path: userId('u_amy') },
    { name: 'an empty user ID', status: 400, path: userId('') },
    { name: 'a user ID with a space', status: 400, path: userId('u amy') },
    { name: 'a user without a passcode', status: 404, path: userId('u_cy') },
  ],
  grantUserPasscode: [
    {
      name: 'a year, one scope, from one range (SPEC 5.48, 5.49)',
      status: 201,
      path: userId('u_cy'),
      body: { validity: { type: 'finite', days: 365 }, scopes: ['events:read'], allowedAddresses: ['198.51.100.0/24'] },
    },
    {
      name: 'a scope not declared',
      status: 400,
      path: userId('u_dee'),
      body: { validity: { type: 'infinite' }, scopes: ['reports:read'] },
      serverRule: 'declaredScopes',
    },
    {
      name: 'a range with host bits set',
      status: 400,
      path: userId('u_dee'),
      body: { validity: { type: 'infinite' }, allowedAddresses: ['198.51.100.1/24'] },
      serverRule: 'cidrRanges',
    },
    { name: 'with credits', status: 201, path: userId('u_dee'), body: { validity: { type: 'infinite' }, credits: { remaining: 100 } } },
    { name: '0 days', status: 400, path: userId('u_dee'), body: { validity: { type: 'finite', days: 0 } } },
    { name: '366 days', status: 400, path: userId('u_dee'), body: { validity: { type: 'finite', days: 366 } } },
    { name: 'an unknown type', status: 400, path: userId('u_dee'), invalidBody: { validity: { type: 'forever' } } },
    { name: 'days on infinite', status: 400, path: userId('u_dee'), invalidBody: { validity: { type: 'infinite', days: 3 } } },
    { name: 'no validity', status: 400, path: userId('u_dee'), invalidBody: {} },
    { name: 'an empty user ID', status: 400, path: userId(''), body: { validity: { type: 'infinite' } } },
    { name: 'a user not in the directory', status: 404, path: userId('u_nobody'), body: { validity: { type: 'infinite' } } },
    { name: 'a member may not grant', status: 403, as: 'member', path: userId('u_dee'), body: { validity: { type: 'infinite' } } },
    { name: 'granted already', status: 409, code: 'ERR_ALREADY_GRANTED', path: userId('u_amy'), body: { validity: { type: 'infinite' } } },
  ],
  revokeUserPasscode: [
    { name: 'revoked', status: 204, path: userId('u_bo') },
    { name: 'an empty user ID', status: 400, path: userId('') },
    { name: 'revoked already', status: 404, path: userId('u_bo') },
    { name: 'a member may not revoke', status: 403, as: 'member', path: userId('u_amy') },
  ],
  getUserPasscodeUsage: [
    { name: 'a member reads the days', status: 200, as: 'member', path: userId('u_amy') },
    { name: 'an empty user ID', status: 400, path: userId('') },
    { name: 'a user without a passcode', status: 404, path: userId('u_nobody') },
  ],
  resetUserPasscode: [
    { name: 'reset', status: 200, path: userId('u_amy') },
    { name: 'an empty user ID', status: 400, path: userId('') },
    { name: 'a user without a passcode', status: 404, path: userId('u_nobody') },
    { name: 'a member may not reset', status: 403, as: 'member', path: userId('u_amy') },
  ],
  revealOwnUserPasscode: [
    { name: 'the caller has one', status: 200 },
    { name: 'the caller has none', status: 404, as: 'member' },
  ],
  getAccount: [
    { name: 'an admin reads it', status: 200 },
    { name: 'any member reads it', status: 200, as: 'member' },
  ],
  setAcceptedPasscodes: [
    { name: 'both', status: 200, body: { acceptedPasscodes: 'both' } },
    { name: 'an unknown setting', status: 400, invalidBody: { acceptedPasscodes: 'all' } },
    { name: 'no setting', status: 400, invalidBody: {} },
    { name: 'an unknown field', status: 400, invalidBody: { acceptedPasscodes: 'user', colour: 'red' } },
    { name: 'a member may not change it', status: 403, as: 'member', body: { acceptedPasscodes: 'user' } },
  ],
  getAccountPolicy: [
    { name: 'an admin reads it', status: 200 },
    { name: 'any member reads it', status: 200, as: 'member' },
  ],
  setAccountPolicy: [
    { name: 'every rule', status: 200, body: { maxLifetimeDays: 3650, requireExpiry: false, requireDescription: false } },
    { name: 'no maximum, rules left out are off', status: 200, body: { maxLifetimeDays: null } },
    { name: 'a maximum of 0 days', status: 400, invalidBody: { maxLifetimeDays: 0 } },
    { name: 'a maximum of 3651 days', status: 400, invalidBody: { maxLifetimeDays: 3651 } },
    { name: 'a rule in words', status: 400, invalidBody: { requireExpiry: 'yes' } },
    { name: 'an unknown rule', status: 400, invalidBody: { maxDays: 30 } },
    { name: 'a member may not change it', status: 403, as: 'member', body: { requireExpiry: true } },
  ],
  resetAccountPolicy: [
    { name: "back to the host's default", status: 200 },
    { name: 'a member may not change it', status: 403, as: 'member' },
  ],
  listAuditRecords: [
    { name: 'a page of two rotations and creations', status: 200, query: () => ({ limit: 2, action: ['passcode.created', 'passcode.rotated'] }) },
    { name: 'the next page, by an actor', status: 200, query: (fixture) => ({ cursor: fixture.cursor, actor: 'u_admin', limit: 2 }) },
    { name: 'in a time window', status: 200, query: () => ({ from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00+01:00', target: 'u_amy' }) },
    { name: 'limit 0', status: 400, query: () => ({ limit: 0 }) },
    { name: 'limit 201', status: 400, query: () => ({ limit: 201 }) },
    { name: 'limit 1.5', status: 400, query: () => ({ limit: 1.5 }) },
    { name: 'limit in words', status: 400, rawQuery: 'limit=ten' },
    { name: 'limit in exponent form', status: 400, rawQuery: 'limit=1e2' },
    { name: 'limit in hexadecimal', status: 400, rawQuery: 'limit=0x10' },
    { name: 'limit twice', status: 400, rawQuery: 'limit=1&limit=2' },
    { name: 'an unknown action', status: 400, rawQuery: 'action=passcode.exploded' },
    { name: 'a time without an offset', status: 400, query: () => ({ from: '2026-01-01T00:00:00' }) },
    { name: 'a time in words', status: 400, query: () => ({ from: 'yesterday' }) },
    { name: 'an empty target', status: 400, query: () => ({ target: '' }) },
    { name: 'an unknown parameter', status: 400, rawQuery: 'colour=red' },
    { name: 'a cursor this list did not give', status: 400, query: () => ({ cursor: 'not-a-cursor' }), serverRule: 'pageCursor' },
    { name: 'a member may not read it', status: 403, as: 'member' },
    { name: 'a trail the server cannot vouch for', status: 500, code: 'ERR_AUDIT_BROKEN', unvouchedTrail: true },
  ],
  exportAuditRecords: [
    { name: 'the rotations', status: 200, query: () => ({ action: ['passcode.rotated'] }) },
    { name: 'everything', status: 200 },
    { name: 'nothing matches', status: 200, query: () => ({ from: '2030-01-01T00:00:00Z' }) },
    { name: 'a time in words', status: 400, query: () => ({ to: 'tomorrow' }) },
    { name: 'limit is not a parameter here', status: 400, rawQuery: 'limit=5' },
    { name: 'a member may not export', status: 403, as: 'member' },
    { name: 'a trail the server cannot vouch for', status: 500, code: 'ERR_AUDIT_BROKEN', unvouchedTrail: true },
  ],
  listWebhooks: [
    { name: 'an admin lists', status: 200 },
    { name: 'a member may not', status: 403, as: 'member' },
  ],
  createWebhook: [
    { name: 'every event type', status: 201, body: { url: HOOK_URL, events: 'all' } },
    {
      name: 'some event types, a description',
      status: 201,
      body: { url: `${HOOK_URL}?tenant=7`, events: ['passcode.leaked', 'credits.low'], description: 'On-call pager' },
    },
    { name: 'disabled from the start', status: 201, body: { url: `${HOOK_URL}?paused`, events: 'all', enabled: false } },
    { name: 'enabled as text', status: 400, invalidBody: { url: HOOK_URL, events: 'all', enabled: 'yes' } },
    { name: 'an ftp URL', status: 400, body: { url: 'ftp://93.184.215.14/hooks', events: 'all' } },
    { name: 'a URL with a password', status: 400, body: { url: 'https://user:pw@93.184.215.14/hooks', events: 'all' } },
    { name: 'a relative URL', status: 400, body: { url: '/hooks', events: 'all' } },
    { name: 'no event type', status: 400, body: { url: HOOK_URL, events: [] } },
    { name: 'an unknown event type', status: 400, invalidBody: { url: HOOK_URL, events: ['passcode.exploded'] } },
    { name: 'no events field', status: 400, invalidBody: { url: HOOK_URL } },
    { name: 'an unknown field', status: 400, invalidBody: { url: HOOK_URL, events: 'all', colour: 'red' } },
    { name: 'a loopback address', status: 400, body: { url: 'http://127.0.0.1:8080/hooks', events: 'all' }, serverRule: 'webhookAddress' },
    { name: 'a cloud metadata address', status: 400, body: { url: 'http://169.254.169.254/latest', events: 'all' }, serverRule: 'webhookAddress' },
    { name: 'a member may not', status: 403, as: 'member', body: { url: HOOK_URL, events: 'all' } },
    { name: 'the 21st endpoint', status: 409, code: 'ERR_CAP_REACHED', body: { url: HOOK_URL, events: 'all' }, webhooksFull: true },
  ],
  updateWebhook: [
    { name: 'a description', status: 200, path: endpointId('endpoint'), body: { description: 'Edited' } },
    { name: 'event types, then all again', status: 200, path: endpointId('endpoint'), body: { events: ['passcode.rotated'] } },
    { name: 'all event types', status: 200, path: endpointId('endpoint'), body: { events: 'all', enabled: true } },
    { name: 'nothing to change', status: 400, path: endpointId('endpoint'), body: {} },
    { name: 'a private address', status: 400, path: endpointId('endpoint'), body: { url: 'http://10.0.0.7/hooks' }, serverRule: 'webhookAddress' },
    { name: 'enabled as text', status: 400, path: endpointId('endpoint'), invalidBody: { enabled: 'yes' } },
    { name: 'no such endpoint', status: 404, path: unknownEndpoint, body: { description: 'Gone' } },
    { name: 'a member may not', status: 403, as: 'member', path: endpointId('endpoint'), body: { description: 'Member' } },
  ],
  deleteWebhook: [
    { name: 'an endpoint', status: 204, path: endpointId('doomedEndpoint') },
    { name: 'no such endpoint (deleted already)', status: 404, path: endpointId('doomedEndpoint') },
    { name: 'an ID with a space', status: 400, path: spacedEndpoint },
    { name: 'a member may not', status: 403, as: 'member', path: endpointId('endpoint') },
  ],
  rotateWebhookSecret: [
    { name: 'a new secret', status: 201, path: endpointId('endpoint') },
    { name: 'no such endpoint', status: 404, path: unknownEndpoint },
    { name: 'an ID with a space', status: 400, path: spacedEndpoint },
    { name: 'a member may not', status: 403, as: 'member', path: endpointId('endpoint') },
  ],
  sendTestWebhook: [
    { name: 'a test event', status: 201, path: endpointId('endpoint') },
    { name: 'no such endpoint', status: 404, path: unknownEndpoint },
    { name: 'an ID with a space', status: 400, path: spacedEndpoint },
    { name: 'a member may not', status: 403, as: 'member', path: endpointId('endpoint') },
  ],
  listWebhookDeliveries: [
    { name: 'the first page', status: 200 },
    { name: 'of one endpoint, one per page', status: 200, query: (fixture) => ({ endpointId: fixture.endpoint, limit: 1 }) },
    { name: 'the next page', status: 200, query: (fixture) => ({ cursor: fixture.deliveryCursor, limit: 1 }) },
    { name: 'limit 0', status: 400, query: () => ({ limit: 0 }) },
    { name: 'limit 101', status: 400, query: () => ({ limit: 101 }) },
    { name: 'limit in words', status: 400, rawQuery: 'limit=ten' },
    { name: 'an unknown parameter', status: 400, rawQuery: 'status=failed' },
    { name: 'a cursor this list did not give', status: 400, query: () => ({ cursor: 'not-a-cursor' }), serverRule: 'pageCursor' },
    { name: 'a member may not', status: 403, as: 'member' },
  ],
  replayWebhookDelivery: [
    { name: 'a delivery', status: 200, path: (fixture) => ({ deliveryId: fixture.delivery }) },
    { name: 'an empty ID', status: 400, path: () => ({ deliveryId: '' }) },
    { name: 'no such delivery', status: 404, path: () => ({ deliveryId: 'msg_nothere' }) },
    { name: 'a member may not', status: 403, as: 'member', path: (fixture) => ({ deliveryId: fixture.delivery }) },
  ],
  listPartners: [
    { name: 'the whitelist', status: 200 },
    { name: 'any member reads it', status: 200, as: 'member' },
  ],
  listScopes: [
    { name: 'the declared scopes', status: 200 },
    { name: 'any member reads them', status: 200, as: 'member' },
  ],
}

/** The connect fixture: the credentials the cases send. */
export interface ConnectFixture {
  readonly valid: ConnectHeaders
  /** A passcode in its last days: a 200 carries `Sunset`. */
  readonly expiring: ConnectHeaders
  readonly expired: ConnectHeaders
  /** The right account, a passcode of the right form that is not one of its passcodes. */
  readonly wrong: ConnectHeaders
}

/** The credential headers, as the generated client types them. */
export type ConnectHeaders = ConnectOperations['connect']['parameters']['header']

/** One request to an operation of docs/openapi.json and the status it must get. */
export interface ConnectCase {
  readonly name: string
  readonly status: number
  /** The credential headers; none sent when absent. */
  readonly credentials?: (fixture: ConnectFixture) => ConnectHeaders
  readonly partner?: ConnectOperations['connect']['parameters']['query']['partner']
  /** A query string as sent, for what the client's types do not allow (no partner, twice). */
  readonly rawQuery?: string
  /** Sent from a browser page of this origin, to the handler that allows `https://partner.example`. */
  readonly origin?: string
  /** `Access-Control-Request-Method`, for OPTIONS. */
  readonly requestMethod?: string
  /** From an address the limiter has stopped. */
  readonly limited?: true
  readonly serverRule?: keyof typeof CONNECT_SERVER_RULES
}

const PAGE = 'https://partner.example'
const valid = (fixture: ConnectFixture) => fixture.valid
const malformed = (accountId: string, passcode: string) => (fixture: ConnectFixture) => ({
  'X-Service-Account-Id': accountId || fixture.valid['X-Service-Account-Id'],
  'X-Service-Passcode': passcode || fixture.valid['X-Service-Passcode'],
})

const GET_AND_HEAD: readonly ConnectCase[] = [
  { name: 'valid credentials, a whitelisted partner', status: 200, credentials: valid, partner: 'Acme' },
  { name: 'a passcode in its last days (Sunset)', status: 200, credentials: (fixture) => fixture.expiring, partner: ' acme ' },
  { name: 'from a page of an allowed origin (CORS)', status: 200, credentials: valid, partner: 'Acme', origin: PAGE },
  { name: 'a wrong passcode of the right form', status: 400, credentials: (fixture) => fixture.wrong, partner: 'Acme', serverRule: 'credentials' },
  { name: 'an unknown account', status: 400, credentials: malformed('acc_nobody', ''), partner: 'Acme', serverRule: 'credentials' },
  { name: 'no credential headers', status: 400, partner: 'Acme' },
  { name: 'an account ID with a space', status: 400, credentials: malformed('acc 1', ''), partner: 'Acme' },
  { name: 'an empty passcode', status: 400, credentials: (fixture) => ({ ...fixture.valid, 'X-Service-Passcode': '' }), partner: 'Acme' },
  { name: 'a passcode of 257 characters', status: 400, credentials: malformed('', 'p'.repeat(257)), partner: 'Acme' },
  { name: 'no partner', status: 400, credentials: valid, rawQuery: '' },
  { name: 'a blank partner', status: 400, credentials: valid, partner: '   ' },
  { name: 'the partner twice', status: 400, credentials: valid, rawQuery: 'partner=Acme&partner=Acme' },
  { name: 'an expired passcode', status: 401, credentials: (fixture) => fixture.expired, partner: 'Acme' },
  { name: 'a partner not whitelisted', status: 403, credentials: valid, partner: 'Globex' },
  { name: 'a partner name too long to be whitelisted', status: 403, credentials: valid, partner: 'p'.repeat(200) },
  { name: 'a refusal to a page of an allowed origin (CORS)', status: 403, credentials: valid, partner: 'Globex', origin: PAGE },
  { name: 'an address the limiter stopped', status: 429, credentials: valid, partner: 'Acme', limited: true },
]

/** Every operation of docs/openapi.json, by operationId. */
export const CONNECT_CASES: { readonly [Id in keyof ConnectOperations]: readonly ConnectCase[] } = {
  connect: GET_AND_HEAD,
  connectHead: GET_AND_HEAD,
  connectPreflight: [
    { name: 'a preflight from an allowed origin', status: 204, origin: PAGE, requestMethod: 'GET' },
    { name: 'no CORS asked', status: 405 },
    { name: 'a preflight for POST', status: 405, origin: PAGE, requestMethod: 'POST' },
    { name: 'a preflight from another origin', status: 405, origin: 'https://evil.example', requestMethod: 'GET' },
  ],
}
