import { StorageTimeoutError } from '../../core/errors'
import type { PasscodeStore } from '../../ports/passcode-store'
import type { Budget } from '../deadline'
import type { SharedReads } from './shared-reads'
import { findUnderPeppers, type CredentialRead, type Peppers } from './peppers'

/**
 * Step 5 of the verification pipeline (see pipeline.ts): the store read of a passcode
 * no cache answered, by its hash (during a pepper change, its hash under every pepper,
 * in one read: `findUnderPeppers`), shared by the verifications that need it at the
 * same time. Each caller keeps its own deadline; one whose deadline ends first lets no
 * later caller join the read (a store call that never settles answers one round of
 * requests with 504, not every later one). Rejects with the budget's storage error.
 *
 * @example
 * ```ts
 * const read = await readCredential(caches.reads, store, peppers, passcode, budget)
 * ```
 */
export async function readCredential(
  reads: SharedReads<CredentialRead>,
  store: PasscodeStore,
  peppers: Peppers,
  passcode: string,
  budget: Budget,
): Promise<CredentialRead> {
  const shared = reads.read(passcode, () => findUnderPeppers(store, peppers, passcode, peppers.current.hash(passcode)))
  try {
    return await budget.run(shared)
  } catch (error) {
    if (error instanceof StorageTimeoutError) reads.abandon(passcode, shared)
    throw error
  }
}
