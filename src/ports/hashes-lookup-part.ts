import type { CredentialMatch } from './credential-lookup-part'

/**
 * The lookup of one value under several peppers in one read (SPEC §5.28, §5.34), an
 * optional part of {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const lookup: HashesLookupPart = memoryStore()
 * const [current, previous] = await lookup.findCredentialsByHashes([currentHash, previousHash])
 * ```
 */
export interface HashesLookupPart {
  /**
   * The verification lookup of one value under several peppers (SPEC §5.28, §5.34): for
   * each of `hashes`, what `findCredentialByHash` answers for it, in
   * the same order, all read from one state of the store (one statement, so one snapshot,
   * in SQL; without yielding in memory). A write that moves the credential from one of
   * these hashes to another (`rehashCredential` by an instance on
   * another step of a pepper change), alone or with a rotation, a disable or an enable,
   * is then seen whole or not at all: one of the hashes finds the credential, in the state
   * before the write or after it. Lookups of the hashes one after the other could each
   * miss it, the row having moved between them.
   *
   * Called only while the `pepper` option has more than one pepper (one pepper is one
   * `findCredentialByHash`). Optional: without it the service reads
   * the hashes one by one in the order a re-hash moves them (the previous peppers', the
   * current one's, then the next ones'), which never misses a moving credential on a
   * store where each read sees every write that finished before it started, and costs
   * more reads: a value under the current pepper takes one read per previous pepper more.
   *
   * @example
   * ```ts
   * const [current, previous] = await store.findCredentialsByHashes!([currentHash, previousHash])
   * const match = current ?? previous // null: no credential holds either
   * ```
   */
  findCredentialsByHashes(hashes: readonly string[]): Promise<readonly (CredentialMatch | null)[]>
}
