/**
 * Type tests of the store port in parts: compiled by `tsc -p .` (and by
 * test/types/type-tests.test.ts), never run. An optional part of `PasscodeStore` comes
 * whole or not at all: a store with half of one does not compile (each `@ts-expect-error`
 * fails the build if its line ever compiles).
 */
import type { CompletePasscodeStore, LeaksPart, PasscodeStore, RequiredStoreParts } from 'passcode-auth'

/** A store with every part, as the memory and PostgreSQL stores are. */
declare const complete: CompletePasscodeStore

/** Every part, and the required parts alone, are stores. */
export function wholeParts(required: RequiredStoreParts): PasscodeStore[] {
  return [complete, required]
}

/** Without any leak method, the store has no leaks part: it compiles. */
export function withoutLeaks(): PasscodeStore {
  const {
    reportLeak: _report,
    listLeakMarks: _list,
    claimLeakNotices: _claim,
    completeLeakNotice: _complete,
    releaseLeakNotice: _release,
    ...store
  } = complete
  return store
}

/** Half of a part does not compile, whichever part it is. */
export function halfParts(): PasscodeStore[] {
  const { listLeakMarks: _list, ...halfLeaks } = complete
  const { countHashesByPepper: _count, ...halfPeppers } = complete
  const { pruneUsageCounts: _prune, ...halfUsageHistory } = complete
  const { claimPolicyNotices: _claimPolicy, ...halfPolicy } = complete
  const { returnLimits: _return, ...halfLimits } = complete
  return [
    // @ts-expect-error reportLeak without listLeakMarks: the leaks part is all or none
    halfLeaks,
    // @ts-expect-error rehashCredential without countHashesByPepper: pepper rotation is all or none
    halfPeppers,
    // @ts-expect-error recordUsageCounts without pruneUsageCounts: usage history is all or none
    halfUsageHistory,
    // @ts-expect-error setAccountPolicy without claimPolicyNotices: accounts' policies are all or none
    halfPolicy,
    // @ts-expect-error leaseLimits without returnLimits: limits and credits are all or none
    halfLimits,
  ]
}

/** A custom store's leaks part must have every method, each with its signature. */
export function customLeaks(required: RequiredStoreParts, leaks: LeaksPart): PasscodeStore[] {
  return [
    { ...required, ...leaks },
    // @ts-expect-error a leaks part whose listLeakMarks takes a number for the account
    { ...required, ...leaks, listLeakMarks: async (_accountId: number) => [] },
  ]
}

/** A required part cannot be left out. */
export function missingRequired(): PasscodeStore {
  const { findCredentialByHash: _find, ...store } = complete
  // @ts-expect-error findCredentialByHash is required
  return store
}
