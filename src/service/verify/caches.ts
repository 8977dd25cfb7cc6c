import type { Invalidation } from '../../ports/passcode-store'
import type { CredentialRead } from './peppers'
import type { OwnerRefusal } from './rules'
import { inspectCustom } from './two-generation-map'

import { RefusalCache } from './refusal-cache'
import { SharedReads } from './shared-reads'
import { VerificationCache } from './verification-cache'

/*
 * The caches of the verification pipeline, held together: the acceptance cache
 * ({@link VerificationCache}), the refusal cache ({@link RefusalCache}) and the reads in
 * flight ({@link SharedReads}), each in its own module with its own generation;
 * {@link VerifyCaches}' `generations()` a store read takes before it starts, and its
 * `invalidate` moves them all.
 */

/** The generation of each cache a store read may write to, taken before the read starts. */
export interface CacheGenerations {
  /** Of the acceptance cache ({@link VerificationCache}). */
  readonly accepted: number
  /** Of the refusal cache ({@link RefusalCache}). */
  readonly refused: number
}

/** The limits of the two caches of {@link VerifyCaches}; `undefined` turns one off. */
export interface VerifyCachesOptions {
  readonly accepted?: { readonly ttlMs: number; readonly maxEntries: number; readonly warnWithinMs?: number | undefined } | undefined
  readonly refused?: { readonly ttlMs: number; readonly maxEntries: number } | undefined
}

/**
 * Every cache of one service's verification pipeline, and the one place that drops
 * what a changed credential invalidates: the acceptance cache (`cache` option), the
 * refusal cache (`cache.refusals`) and the store reads in flight. A store read takes
 * {@link generations} before it starts and hands them back when it writes, so that
 * nothing read before an invalidation is kept after it.
 *
 * @example
 * ```ts
 * const caches = new VerifyCaches({ accepted: { ttlMs: 30_000, maxEntries: 10_000 } })
 * store.subscribe?.(caches.invalidate)
 * ```
 */
export class VerifyCaches {
  /** Passcode value → principal: the warm path. `undefined` with `cache: false`. */
  readonly accepted: VerificationCache | undefined
  /** Refused well-formed passcode values. `undefined` with `cache: false` or `cache.refusals: false`. */
  readonly refused: RefusalCache<OwnerRefusal> | undefined
  /** The store reads in flight, shared by concurrent misses of one passcode. */
  readonly reads = new SharedReads<CredentialRead>()

  constructor(options: VerifyCachesOptions) {
    this.accepted = options.accepted === undefined ? undefined : new VerificationCache(options.accepted)
    this.refused = options.refused === undefined ? undefined : new RefusalCache<OwnerRefusal>(options.refused)
  }

  /** The generations to hand back with what a store read starting now finds. */
  generations(): CacheGenerations {
    return { accepted: this.accepted?.generation ?? 0, refused: this.refused?.generation ?? 0 }
  }

  /** Drops a changed credential from every cache (and the reads in flight) at once; bound, for `store.subscribe`. */
  readonly invalidate = (invalidation: Invalidation): void => {
    // A proof heard changes nothing read: reads in flight may still be joined.
    if (invalidation.type !== 'fresh') this.reads.invalidate()
    this.accepted?.invalidate(invalidation)
    this.refused?.invalidate(invalidation)
  };

  /** Keeps cached values out of `util.inspect` and `console.log`. */
  [inspectCustom](): string {
    return `VerifyCaches { accepted: ${this.accepted?.size ?? 'off'}, refused: ${this.refused?.size ?? 'off'}, reads: ${this.reads.size} }`
  }

  /** Keeps cached values out of `JSON.stringify`. */
  toJSON(): { accepted: number | null; refused: number | null; reads: number } {
    return { accepted: this.accepted?.size ?? null, refused: this.refused?.size ?? null, reads: this.reads.size }
  }
}
