import type { PasscodeStore } from '../../../src/ports/passcode-store'

/** The store methods a verification reads a credential with. */
const READS = new Set<PropertyKey>(['findCredentialByHash', 'findCredentialsByHashes'])

/** A view of a store with a write placed among a verification's reads (see {@link writeAfterReads}). */
export interface Interleaved {
  readonly store: PasscodeStore
  /** How many reads the verification made. */
  readonly reads: number
  /** Whether the write ran (it does not when `after` is past the last read). */
  readonly wrote: boolean
}

/**
 * A view of `store` on which a write by another instance commits at a chosen point of a
 * verification's reads, without sleeps: `write` runs to completion once `after` reads
 * have answered (0: before the first is sent), before that answer reaches the caller.
 * Run with `after` = 0, 1, 2, … up to the number of reads made, it covers every point
 * among the reads of one verification, whatever their number.
 *
 * @example
 * ```ts
 * const view = writeAfterReads(store, 1, () => other.rehashCredential!(rehash))
 * const outcome = await createPasscodeAuth({ store: view.store, pepper, cache: false }).authenticate(credentials)
 * ```
 */
export function writeAfterReads(store: PasscodeStore, after: number, write: () => Promise<unknown>): Interleaved {
  let reads = 0
  let wrote = false
  const writeOnce = async () => {
    if (wrote) return
    wrote = true
    await write()
  }
  const view = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      const method = value as (...args: unknown[]) => Promise<unknown>
      if (!READS.has(property)) return method.bind(target)
      return async (...args: unknown[]) => {
        if (after === 0) await writeOnce()
        const answer = await method.apply(target, args)
        reads += 1
        if (reads === after) await writeOnce()
        return answer
      }
    },
  })
  return {
    store: view,
    get reads() {
      return reads
    },
    get wrote() {
      return wrote
    },
  }
}
