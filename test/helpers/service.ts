import { createPasscodeAuth, type AuditEvent, type PasscodeAuthOptions, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'

/** A clock the test moves by hand. */
export function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start
  const clock = () => new Date(now)
  // defineProperty, not Object.assign: assign would copy the getter's value once.
  Object.defineProperty(clock, 'ms', { get: () => now })
  return Object.assign(clock as typeof clock & { readonly ms: number }, {
    set(ms: number) {
      now = ms
    },
    advance(ms: number) {
      now += ms
    },
  })
}

/** A 32-byte test key; obviously not a real secret. */
export const TEST_KEY = new Uint8Array(32).fill(1)

export const admin = { userId: 'u_admin', role: 'admin' } as const
export const member = { userId: 'u_member', role: 'member' } as const
export const settingsWriter = { userId: 'u_writer', role: 'member', canWriteUserSettings: true } as const

/** A service over a fresh memory store with a manual clock, recording events. */
export function setup(options: Partial<PasscodeAuthOptions> = {}) {
  const clock = manualClock()
  const events: AuditEvent[] = []
  const store: PasscodeStore = options.store ?? memoryStore()
  const auth = createPasscodeAuth({
    partners: ['Acme'],
    encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    clock,
    onEvent: (event) => {
      events.push(event)
    },
    ...options,
    store,
  })
  return { auth, clock, events, store }
}

/** The exact 400 body of SPEC §4. */
export const INVALID_CREDENTIALS = { status: 'fail', error: 'Invalid Credentials', code: 400 }
