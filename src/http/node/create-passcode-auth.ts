import { createPasscodeAuth as createService, type PasscodeAuth } from '../../service/create-passcode-auth'
import type { PasscodeAuthOptions } from '../../service/options'
import { nodeWebhookSender } from './webhook-sender'

/** Node (and Bun, Deno) load built-ins through `process.getBuiltinModule`; browsers and edge runtimes have none. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- edge runtimes have no `process`, whatever Node's types say
const onNode = (): boolean => typeof globalThis.process?.getBuiltinModule === 'function'

/**
 * Creates the passcode-auth service over a store (SPEC §1). Options are validated at
 * once; a bad one throws an `InvalidOptionsError` that names it. Where Node's built-ins
 * are at hand, webhooks (SPEC §5.53) are sent with the Node sender unless
 * `webhooks.sender` says otherwise; elsewhere (browsers, edge runtimes) there is no
 * default sender, and everything else works the same.
 *
 * @param options - see {@link PasscodeAuthOptions}
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { memoryStore } from 'passcode-auth/memory'
 *
 * const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })
 * const admin = { userId: 'u_admin', role: 'admin' } as const
 * const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
 * const outcome = await auth.authenticate({ accountId: 'acc_1', passcode: value })
 * // outcome.ok === true, outcome.principal.kind === 'account'
 * ```
 */
export function createPasscodeAuth(options: PasscodeAuthOptions): PasscodeAuth {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass anything: the service names what is wrong
  if (typeof options !== 'object' || options === null || options.webhooks?.sender !== undefined || !onNode()) return createService(options)
  return createService({ ...options, webhooks: { ...options.webhooks, sender: nodeWebhookSender() } })
}
