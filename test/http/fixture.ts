import {
  createPasscodeAuth,
  generatePasscode,
  type PasscodeAuth,
  type PasscodeAuthOptions,
  type PasscodeStore,
  type Principal,
} from '../../src/index'
import { memoryStore } from '../../src/memory'
import { DAY_MS } from '../../src/core/time'
import { admin, manualClock, TEST_KEY } from '../helpers/service'

/** How the wrapped store or partner registry behaves for the next requests. */
export type FailureMode = 'normal' | 'throws' | 'hangs'

/** The storage deadline of the fixture: short, so 504 cases stay fast. */
export const FIXTURE_TIMEOUT_MS = 200

/** The partner the fixture whitelists. */
export const WHITELISTED_PARTNER = 'Acme'
/** A second whitelisted partner, the only one `passcodes.bound` works for (SPEC §5.25). */
export const BOUND_PARTNER = 'Initech'

/**
 * One passcode-auth service shared by every framework under test, so that IDs in
 * the principals (and so the bytes of `/1/events.json`) are the same for all six.
 * Values are generated at run time; nothing here looks like a real secret.
 */
export interface HttpFixture {
  readonly auth: PasscodeAuth
  /** Makes storage reads throw or hang from now on (`normal` restores them). */
  setStorage(mode: FailureMode): void
  /** Makes the partner registry throw or hang from now on. */
  setPartners(mode: FailureMode): void
  /** Account accepting `both`; holds most credentials. */
  readonly accountId: string
  /** Account accepting only account passcodes (the default). */
  readonly otherAccountId: string
  /** A 256-character account ID: the longest header value allowed (SPEC §5.4). */
  readonly longAccountId: string
  readonly passcodes: {
    /** Active account passcode of `accountId`. */
    readonly active: string
    /** Account passcode of `accountId`, expired by the fixture's clock. */
    readonly expired: string
    /** Account passcode of `accountId` in its last 30 days: its answers carry `Sunset`. */
    readonly expiring: string
    /** Account passcode of `accountId`, deleted. */
    readonly deleted: string
    /** Account passcode of `accountId`, disabled (SPEC §5.38); also past its expiry, which must not show. */
    readonly disabled: string
    /** Active account passcode of `otherAccountId`. */
    readonly otherAccount: string
    /** Active account passcode of `longAccountId`. */
    readonly longAccount: string
    /** User passcode of `accountId` (accepted). */
    readonly user: string
    /** User passcode of `accountId`, revoked. */
    readonly revokedUser: string
    /** User passcode of `otherAccountId`, which does not accept user passcodes. */
    readonly userNotAccepted: string
    /**
     * Well-formed (checksum holds) but never issued: reaches storage, matches nothing.
     * A new value on every read, so that the refusal cache never answers for it.
     */
    readonly unknown: string
    /** Account passcode of `accountId` bound to {@link BOUND_PARTNER} only. */
    readonly bound: string
    /** The value a rotation replaced, inside its 7-day overlap: still works. */
    readonly previous: string
    /** The value replaced by a rotation with no overlap: stopped at once. */
    readonly rotatedAway: string
    /** Account passcode of `accountId` granting only `events:read` (SPEC §5.48). */
    readonly readOnly: string
    /** Account passcode of `accountId` usable only from 192.0.2.0/24 (SPEC §5.49): never from the suite's clients. */
    readonly fenced: string
  }
  /** What `/1/events.json` returns for `passcodes.active`, `passcodes.user`, `passcodes.bound`, `passcodes.expiring` and `passcodes.readOnly`. */
  readonly principals: {
    readonly account: Principal
    readonly user: Principal
    readonly bound: Principal
    readonly expiring: Principal
    readonly readOnly: Principal
  }
  /** The `Sunset` header of answers authenticated by `passcodes.expiring`, `passcodes.user` and `passcodes.previous`. */
  readonly sunsets: { readonly expiring: string; readonly user: string; readonly previous: string }
  close(): Promise<void>
}

function controllable<T extends object>(target: T, method: keyof T & string, mode: () => FailureMode): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver)
      if (property !== method || typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const current = mode()
        if (current === 'throws') return Promise.reject(new Error('simulated outage: connection refused'))
        if (current === 'hangs') return new Promise<never>(() => {})
        return (value as (...a: unknown[]) => unknown).apply(object, args)
      }
    },
  })
}

/**
 * Builds the shared fixture: two accounts, every kind of credential, a clock two days
 * on (and standing still). `options` are extra service options, e.g. `rateLimit`, and
 * the store to build it in (an empty one; a fresh memory store by default).
 */
/** What a passcode with every scope grants: the fixture's declared scopes, in their order. */
const EVERY_SCOPE = ['events:read', 'events:write']

export async function createHttpFixture(options: Pick<PasscodeAuthOptions, 'rateLimit'> & { store?: PasscodeStore } = {}): Promise<HttpFixture> {
  const { store: given = memoryStore(), ...serviceOptions } = options
  const clock = manualClock(Date.UTC(2026, 0, 1))
  let storageMode: FailureMode = 'normal'
  let partnerMode: FailureMode = 'normal'
  const store: PasscodeStore = controllable(given, 'findCredentialByHash', () => storageMode)
  const whitelist = new Set([WHITELISTED_PARTNER.toLowerCase(), BOUND_PARTNER.toLowerCase()])
  const partners = controllable({ isWhitelisted: (name: string) => whitelist.has(name) }, 'isWhitelisted', () => partnerMode)
  const auth = createPasscodeAuth({
    store,
    partners,
    clock,
    encryptionKeys: [{ id: 'test-key', key: TEST_KEY }],
    timeoutMs: FIXTURE_TIMEOUT_MS,
    // SPEC §5.48: the write route needs `events:write`; every principal lists what it grants.
    scopes: { 'events:read': 'Read events', 'events:write': 'Send events' },
    ...serviceOptions,
  })

  const accountId = 'acc_both'
  const otherAccountId = 'acc_other'
  const longAccountId = `acc_${'x'.repeat(252)}`
  await auth.accounts.setAcceptedPasscodes(admin, accountId, 'both')

  const active = await auth.passcodes.create(admin, accountId, { name: 'Partner A', expiry: 90 })
  const expired = await auth.passcodes.create(admin, accountId, { name: 'Short lived', expiry: 1 })
  const expiring = await auth.passcodes.create(admin, accountId, { name: 'Expiring', expiry: 20 })
  const deleted = await auth.passcodes.create(admin, accountId, { name: 'Deleted', expiry: 90 })
  await auth.passcodes.delete(admin, accountId, deleted.passcode.id)
  const disabled = await auth.passcodes.create(admin, accountId, { name: 'Disabled', expiry: 1 })
  await auth.passcodes.disable(admin, accountId, disabled.passcode.id)
  const otherAccount = await auth.passcodes.create(admin, otherAccountId, { name: 'Partner B', expiry: 90 })
  const longAccount = await auth.passcodes.create(admin, longAccountId, { name: 'Long account', expiry: 90 })
  const bound = await auth.passcodes.create(admin, accountId, { name: 'Initech only', expiry: 90, partners: [BOUND_PARTNER] })
  const overlapping = await auth.passcodes.create(admin, accountId, { name: 'Rotated', expiry: 90 })
  await auth.passcodes.rotate(admin, accountId, overlapping.passcode.id, { overlapMinutes: 10_080 })
  const readOnly = await auth.passcodes.create(admin, accountId, { name: 'Read only', expiry: 90, scopes: ['events:read'] })
  // SPEC §5.49: only from TEST-NET-1, so never from the suite's 127.0.0.1 (nor from an adapter without an address).
  const fenced = await auth.passcodes.create(admin, accountId, { name: 'Fenced', expiry: 90, allowedAddresses: ['192.0.2.0/24'] })
  const cutOver = await auth.passcodes.create(admin, accountId, { name: 'Cut over', expiry: 90 })
  await auth.passcodes.rotate(admin, accountId, cutOver.passcode.id, { overlapMinutes: 0 })

  const grantUser = async (account: string, userId: string) => {
    await auth.userPasscodes.grant(admin, account, userId, { validity: { type: 'finite', days: 30 } })
    return (await auth.userPasscodes.reveal({ userId, role: 'member' }, account)).value
  }
  const user = await grantUser(accountId, 'u_user')
  const revokedUser = await grantUser(accountId, 'u_revoked')
  await auth.userPasscodes.revoke(admin, accountId, 'u_revoked')
  const userNotAccepted = await grantUser(otherAccountId, 'u_other')

  clock.advance(2 * DAY_MS)

  return {
    auth,
    setStorage: (mode) => {
      storageMode = mode
    },
    setPartners: (mode) => {
      partnerMode = mode
    },
    accountId,
    otherAccountId,
    longAccountId,
    passcodes: {
      active: active.value,
      expired: expired.value,
      expiring: expiring.value,
      deleted: deleted.value,
      disabled: disabled.value,
      otherAccount: otherAccount.value,
      longAccount: longAccount.value,
      user,
      revokedUser,
      userNotAccepted,
      get unknown() {
        return generatePasscode()
      },
      bound: bound.value,
      previous: overlapping.value,
      rotatedAway: cutOver.value,
      readOnly: readOnly.value,
      fenced: fenced.value,
    },
    principals: {
      account: { accountId, kind: 'account', passcodeId: active.passcode.id, passcodeName: 'Partner A', scopes: EVERY_SCOPE },
      user: { accountId, kind: 'user', userId: 'u_user', scopes: EVERY_SCOPE },
      bound: { accountId, kind: 'account', passcodeId: bound.passcode.id, passcodeName: 'Initech only', partners: ['initech'], scopes: EVERY_SCOPE },
      expiring: { accountId, kind: 'account', passcodeId: expiring.passcode.id, passcodeName: 'Expiring', scopes: EVERY_SCOPE },
      readOnly: { accountId, kind: 'account', passcodeId: readOnly.passcode.id, passcodeName: 'Read only', scopes: ['events:read'] },
    },
    // From the fixture's start, 2026-01-01: 20 days, the user passcode's 30, and the
    // rotation's 7-day overlap, after which the previous value stops working.
    sunsets: { expiring: 'Wed, 21 Jan 2026 00:00:00 GMT', user: 'Sat, 31 Jan 2026 00:00:00 GMT', previous: 'Thu, 08 Jan 2026 00:00:00 GMT' },
    close: () => auth.close(),
  }
}
