import { createHash, randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import type { AuditAction, AuditEntry, AuditRecord } from '../../../src/core/audit'
import { auditKeyring } from '../../../src/core/audit-keys'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../../src/core/passcode-records'
import type { AuditAppend } from '../../../src/ports/audit-log'
import { DAY_MS } from '../../../src/core/time'
import type { ClaimRequest, Invalidation, PasscodeStore } from '../../../src/ports/passcode-store'

/** One store under test, over fresh, empty storage of its own. */
export interface StoreFixture {
  readonly store: PasscodeStore
  /**
   * Another store over the same storage, opened the way a second process opens it
   * (its own connections where the adapter has any). A store without such a notion
   * may return `store` itself.
   */
  peer(): Promise<PasscodeStore>
  /** Inserts many passcodes at once, bypassing the cap (the lookup check). @default one create or grant each */
  seed?(accounts: readonly AccountPasscodeRecord[], users: readonly UserPasscodeRecord[]): Promise<void>
  /** The query plan of the verification lookup of `hash` (of several, as `findCredentialsByHashes`), for stores that have one. */
  explainLookup?(hash: string | readonly string[]): Promise<string>
  /** Closes the store, its peers and what the fixture opened, and drops the storage. */
  close(): Promise<void>
}

/** How the suite gets fresh stores. */
export interface StoreConformanceOptions {
  /** Opens a fixture over fresh, empty, isolated storage. */
  open(): Promise<StoreFixture>
}

/** A fixed "now": instants in tests are relative to it. */
export const NOW = Date.UTC(2030, 0, 1)

/** The audit keys of the store cases: records are signed under `conformance` (an HMAC, SPEC §5.44). */
export const AUDIT_KEYS = auditKeyring([{ id: 'conformance', key: new Uint8Array(32).fill(7) }])

/** An entry as a write hands it to a store: with the cases' signer. */
export const signed = (entry: AuditEntry): AuditAppend => ({ entry, signer: AUDIT_KEYS.signer })

/** The request ID of the records {@link audited} makes: {@link caseRecords} leaves them out. */
export const SETUP_REQUEST = 'case-setup'

/**
 * The audit record a case's write hands its store when the case looks at the change,
 * not at its record (every write has one, SPEC §5.40): a system entry of `action` for
 * the write's account, with the cases' signer, under {@link SETUP_REQUEST}. `of` is the
 * account ID, or the record, claim or report the write takes.
 */
export const audited = (of: string | { readonly accountId: string }, action: AuditAction = 'passcode.updated'): AuditAppend =>
  signed({
    accountId: typeof of === 'string' ? of : of.accountId,
    at: NOW,
    actor: { type: 'system' },
    action,
    target: { type: 'account' },
    changes: {},
    requestId: SETUP_REQUEST,
    clientAddress: null,
  })

/** The records a case looks at: those of its setup's writes ({@link audited}) left out. */
export const caseRecords = (records: readonly AuditRecord[]): AuditRecord[] => records.filter((record) => record.requestId !== SETUP_REQUEST)
export const WINDOW_MS = 30 * DAY_MS

let counter = 0
const run = randomUUID().slice(0, 8)

/** A lowercase hex SHA-256, like the service's hashes (of a throw-away string, not a passcode). */
export const fakeHash = (seed = `${run}-${++counter}`): string => createHash('sha256').update(seed).digest('hex')

/** An account passcode record; `createdAt` grows with each call so lists have an order. */
export function accountPasscode(overrides: Partial<AccountPasscodeRecord> = {}): AccountPasscodeRecord {
  const n = ++counter
  const name = overrides.name ?? `Partner ${n}`
  return {
    id: `pc_${run}_${String(n).padStart(6, '0')}`,
    accountId: 'acc_1',
    name,
    nameKey: name.trim().toLowerCase(),
    hash: fakeHash(`account-${run}-${n}`),
    hint: 'psc_…Ab12',
    expiry: 90,
    createdAt: NOW + n,
    updatedAt: NOW + n,
    expiresAt: NOW + 90 * DAY_MS,
    partners: null,
    previousHash: null,
    previousHashEndsAt: null,
    lastUsedAt: null,
    lastUsedPartner: null,
    disabledAt: null,
    description: '',
    // Unrestricted (SPEC §5.48–5.51), as every store reads a passcode without restrictions back.
    scopes: null,
    allowedAddresses: [],
    metadata: null,
    tags: [],
    ...overrides,
  }
}

/** A user passcode record; the ciphertext is a placeholder, not a JWE of anything. */
export function userPasscode(overrides: Partial<UserPasscodeRecord> = {}): UserPasscodeRecord {
  const n = ++counter
  return {
    accountId: 'acc_1',
    userId: 'u_1',
    hash: fakeHash(`user-${run}-${n}`),
    ciphertext: `fixture-ciphertext-${n}`,
    hint: 'psc_…Cd34',
    validity: { type: 'finite', days: 30 },
    grantedAt: NOW,
    expiresAt: NOW + 30 * DAY_MS,
    revokedAt: null,
    lastUsedAt: null,
    lastUsedPartner: null,
    scopes: null,
    allowedAddresses: [],
    ...overrides,
  }
}

/** A claim request at `now` with the defaults of the notifier. */
export function claimRequest(now: number, overrides: Partial<ClaimRequest> = {}): ClaimRequest {
  return { now, windowMs: WINDOW_MS, leaseMs: 60_000, limit: 100, token: randomUUID(), ...overrides }
}

/** Retries `assertion` until it passes or `timeoutMs` elapses (then rethrows its error). */
export async function eventually(assertion: () => void | Promise<void>, timeoutMs = 1_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await assertion()
      return
    } catch (error) {
      if (Date.now() >= deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
}

/**
 * Subscribes to `store` and waits until the subscription receives writes made on
 * `writer` (a probe account's setting), so that a test measures delivery, not the
 * time a listening connection takes to open.
 */
export async function subscribeReady(store: PasscodeStore, writer: PasscodeStore): Promise<Invalidation[]> {
  const received: Invalidation[] = []
  expect(store.subscribe).toBeTypeOf('function')
  store.subscribe!((invalidation) => received.push(invalidation))
  const probe = `probe_${randomUUID()}`
  const deadline = Date.now() + 10_000
  for (;;) {
    await writer.setAcceptedPasscodes(probe, 'account', audited(probe, 'account.accepted_passcodes_changed'))
    try {
      await eventually(() => expect(received).toContainEqual({ type: 'account', accountId: probe }), 250)
      received.length = 0
      return received
    } catch (error) {
      if (Date.now() >= deadline) throw error
    }
  }
}

/** The unique key of a claim. */
export const claimKey = (claim: { passcodeId: string; kind: string; expiresAt: number }): string =>
  `${claim.passcodeId}|${claim.kind}|${claim.expiresAt}`
