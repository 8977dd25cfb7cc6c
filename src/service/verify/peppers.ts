import { createPasscodeHasher, pepperId, type PasscodeHasher } from '../../core/hashing'
import type { CredentialMatch, PasscodeStore } from '../../ports/passcode-store'

/** One pepper of the `pepper` option, as the service uses it. */
export interface Pepper {
  /** {@link pepperId} of it, stored next to each hash it keys. */
  readonly id: string
  readonly hash: PasscodeHasher
}

/** The `pepper` option resolved: the first keys new hashes, the older ones only verify (SPEC §5.28). */
export interface Peppers {
  readonly current: Pepper
  readonly older: readonly Pepper[]
}

type PepperOption = string | Uint8Array | readonly (string | Uint8Array | null)[] | undefined

/** Resolves the (validated) `pepper` option; no option is "no pepper", plain SHA-256. */
export function resolvePeppers(option: PepperOption): Peppers {
  const list = option === undefined ? [null] : Array.isArray(option) ? option : [option as string | Uint8Array]
  const [current, ...older] = list.map((pepper: string | Uint8Array | null) => ({
    id: pepperId(pepper),
    hash: createPasscodeHasher(pepper ?? undefined),
  }))
  return { current: current!, older }
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
 * older pepper can go (SPEC §5.28): it can once its count is 0 and `unknown` is 0.
 */
export interface PepperReport {
  /** Hashes keyed by the current (first) pepper. */
  readonly current: number
  /** Hashes keyed by each older pepper, in the order of the `pepper` list after the first. */
  readonly older: readonly number[]
  /**
   * Hashes whose pepper is not known: written before schema version 3 (by whatever
   * pepper was configured then), or by a pepper no longer in the list. Each is labelled,
   * and re-hashed if need be, the first time it verifies.
   */
  readonly unknown: number
}

/** Counts the store's hashes by pepper; `undefined` when the store cannot count them. */
export async function pepperReport(store: PasscodeStore, peppers: Peppers): Promise<PepperReport | undefined> {
  const counts = await store.countHashesByPepper?.()
  if (counts === undefined) return undefined
  const known = new Set([peppers.current.id, ...peppers.older.map((pepper) => pepper.id)])
  let unknown = 0
  for (const [id, count] of counts) if (id === null || !known.has(id)) unknown += count
  return { current: counts.get(peppers.current.id) ?? 0, older: peppers.older.map((pepper) => counts.get(pepper.id) ?? 0), unknown }
}

/**
 * Finds the credential of `passcode` under the current pepper, then under each older
 * one in turn: with one pepper, one hash and one lookup, as before; during a rotation a
 * passcode that is not found costs one lookup per pepper.
 */
export async function findUnderPeppers(store: PasscodeStore, peppers: Peppers, passcode: string, currentHash: string): Promise<CredentialRead> {
  let match = await store.findCredentialByHash(currentHash)
  if (match !== null || peppers.older.length === 0) return { match, hash: currentHash, pepper: peppers.current }
  for (const pepper of peppers.older) {
    const hash = pepper.hash(passcode)
    match = await store.findCredentialByHash(hash)
    if (match !== null) return { match, hash, pepper }
  }
  return { match: null, hash: currentHash, pepper: peppers.current }
}

/**
 * After a successful verification: stores the hash under the current pepper when it
 * matched under an older one, or labels it when its pepper was not known. Not awaited
 * by the request; a failure leaves the hash as it was, to be tried at the next verify.
 */
export function rehashIfOlder(store: PasscodeStore, peppers: Peppers, match: CredentialMatch, matched: { hash: string; pepper: Pepper }, passcode: string): void {
  const { record } = match
  // A previous value within a rotation overlap is left alone: it stops at the overlap's end.
  if (record.hash !== matched.hash) return
  if (matched.pepper === peppers.current && record.pepperId === peppers.current.id) return
  if (store.rehashCredential === undefined) return
  const currentHash = matched.pepper === peppers.current ? matched.hash : peppers.current.hash(passcode)
  const id = match.kind === 'account' ? match.record.id : match.record.userId
  store
    .rehashCredential({ kind: match.kind, accountId: record.accountId, id, fromHash: matched.hash, toHash: currentHash, pepperId: peppers.current.id })
    .catch(() => undefined)
}
