import { createPasscodeHasher, pepperId, type PasscodeHasher } from '../../core/hashing'
import type { CredentialMatch, PasscodeStore } from '../../ports/passcode-store'
import { pepperRoles, pepperWriteBack, type PepperOption, type PepperRole } from './pepper-policy'

/** One pepper of the `pepper` option, as the service uses it. */
export interface Pepper {
  /** {@link pepperId} of it, stored next to each hash it keys. */
  readonly id: string
  readonly hash: PasscodeHasher
  /** What it is for during a pepper change (SPEC §5.34). */
  readonly role: PepperRole
}

/**
 * The `pepper` option resolved (SPEC §5.28, §5.34): the current one keys new hashes;
 * the previous ones verify and are re-hashed to it; the next ones only verify.
 */
export interface Peppers {
  readonly current: Pepper
  /** The peppers other than the current one that verify, in the order they are tried: the previous ones, then the next ones. */
  readonly older: readonly Pepper[]
  readonly previous: readonly Pepper[]
  readonly next: readonly Pepper[]
  /**
   * Every pepper in the order a re-hash moves a row (previous, current, next): the order
   * of the reads on a store that cannot look several hashes up at once (see {@link findUnderPeppers}).
   */
  readonly readOrder: readonly Pepper[]
}

/** Resolves the (validated) `pepper` option; no option is "no pepper", plain SHA-256. */
export function resolvePeppers(option: PepperOption): Peppers {
  const roles = pepperRoles(option)
  const resolve =
    (role: PepperRole) =>
    (pepper: string | Uint8Array | null): Pepper => ({
      id: pepperId(pepper),
      hash: createPasscodeHasher(pepper ?? undefined),
      role,
    })
  const previous = roles.previous.map(resolve('previous'))
  const next = roles.next.map(resolve('next'))
  const current = resolve('current')(roles.current)
  return { current, older: [...previous, ...next], previous, next, readOrder: [...previous, current, ...next] }
}

/** One verification read: what the store found for the passcode's hash, and that hash. */
export interface CredentialRead {
  readonly match: CredentialMatch | null
  readonly hash: string
  /** The pepper whose hash matched (the current one when nothing did), SPEC §5.28. */
  readonly pepper: Pepper
}

/**
 * How many stored hashes each pepper keys, for an operator who wants to know when an
 * older pepper can go (SPEC §5.28): it can once its count is 0 and `unknown` is 0. The
 * previous value of a rotation in its overlap counts under its own pepper (SPEC §5.47).
 */
export interface PepperReport {
  /** Hashes keyed by the current (first) pepper. */
  readonly current: number
  /**
   * Hashes keyed by each previous pepper: in the order of the `pepper` list after the
   * first, or of `pepper.previous`.
   */
  readonly older: readonly number[]
  /** Hashes keyed by each pepper of `pepper.next`, in its order; only when it names any. */
  readonly next?: readonly number[]
  /**
   * Hashes whose pepper is not known: written before schema version 3 (by whatever
   * pepper was configured then), or by a pepper no longer in the list. Each is labelled,
   * and re-hashed if need be, the first time it verifies.
   */
  readonly unknown: number
}

/** Counts the store's hashes by pepper at `now`, previous values in their overlap included (SPEC §5.47); `undefined` when the store cannot count them. */
export async function pepperReport(store: PasscodeStore, peppers: Peppers, now: number): Promise<PepperReport | undefined> {
  const counts = await store.countHashesByPepper?.(now)
  if (counts === undefined) return undefined
  const known = new Set([peppers.current.id, ...peppers.older.map((pepper) => pepper.id)])
  let unknown = 0
  for (const [id, count] of counts) if (id === null || !known.has(id)) unknown += count
  const count = (pepper: Pepper) => counts.get(pepper.id) ?? 0
  const next = peppers.next.length === 0 ? {} : { next: peppers.next.map(count) }
  return { current: count(peppers.current), older: peppers.previous.map(count), ...next, unknown }
}

/**
 * Finds the credential of `passcode` under every pepper (SPEC §5.28, §5.34): with one
 * pepper, one hash and one lookup, as before; with several, the value's hash under each,
 * all looked up in one read of the store (`findCredentialsByHashes`: one statement, one
 * snapshot), so a re-hash by another instance that moves the row from one of these
 * hashes to another while this verification runs cannot make it miss under both. The
 * first hash that matches in the order current, previous, next wins (a value has one
 * credential; the order only keeps the answer fixed).
 *
 * A store without `findCredentialsByHashes` is read one hash at a time in the order a
 * re-hash moves a row, previous peppers first, then the current one, then the next ones
 * (which nothing moves to or from): a row that moves between two reads moves to a hash
 * read later, so it is never missed on a store whose reads see every write that finished
 * before they started.
 *
 * @example
 * ```ts
 * const { match, hash, pepper } = await findUnderPeppers(store, peppers, passcode, peppers.current.hash(passcode))
 * ```
 */
export async function findUnderPeppers(store: PasscodeStore, peppers: Peppers, passcode: string, currentHash: string): Promise<CredentialRead> {
  if (peppers.older.length === 0) return { match: await store.findCredentialByHash(currentHash), hash: currentHash, pepper: peppers.current }
  if (store.findCredentialsByHashes === undefined) return findOneByOne(store, peppers, passcode, currentHash)
  const hashes = [currentHash]
  for (const pepper of peppers.older) hashes.push(pepper.hash(passcode))
  const matches = await store.findCredentialsByHashes(hashes)
  for (let i = 0; i < hashes.length; i++) {
    const match = matches[i] ?? null
    if (match !== null) return { match, hash: hashes[i]!, pepper: i === 0 ? peppers.current : peppers.older[i - 1]! }
  }
  return { match: null, hash: currentHash, pepper: peppers.current }
}

/** {@link findUnderPeppers} on a store that has no `findCredentialsByHashes`: one read per pepper, in the order rows move. */
async function findOneByOne(store: PasscodeStore, peppers: Peppers, passcode: string, currentHash: string): Promise<CredentialRead> {
  for (const pepper of peppers.readOrder) {
    const hash = pepper === peppers.current ? currentHash : pepper.hash(passcode)
    const match = await store.findCredentialByHash(hash)
    if (match !== null) return { match, hash, pepper }
  }
  return { match: null, hash: currentHash, pepper: peppers.current }
}

/**
 * After a successful verification: stores the hash under the current pepper when it
 * matched under a previous one, or labels it when its pepper was not known; a match
 * under a next pepper is never re-hashed (see `pepperWriteBack`). Not awaited by the
 * request; a failure leaves the hash as it was, to be tried at the next verify.
 */
export function rehashIfOlder(
  store: PasscodeStore,
  peppers: Peppers,
  match: CredentialMatch,
  matched: { hash: string; pepper: Pepper },
  passcode: string,
): void {
  const { record } = match
  // A previous value within a rotation overlap is left alone: it stops at the overlap's end.
  if (record.hash !== matched.hash) return
  const writeBack = pepperWriteBack(matched.pepper.role, matched.pepper.id, record.pepperId ?? null)
  if (writeBack.kind === 'none' || store.rehashCredential === undefined) return
  const to =
    writeBack.kind === 'rehash'
      ? { toHash: peppers.current.hash(passcode), pepperId: peppers.current.id }
      : { toHash: matched.hash, pepperId: matched.pepper.id }
  const id = match.kind === 'account' ? match.record.id : match.record.userId
  store.rehashCredential({ kind: match.kind, accountId: record.accountId, id, fromHash: matched.hash, ...to }).catch(() => undefined)
}
