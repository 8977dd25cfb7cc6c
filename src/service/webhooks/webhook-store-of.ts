import { ConfigurationError } from '../../core/errors'
import type { PasscodeStore } from '../../ports/passcode-store'
import type { WebhookStore } from '../../ports/webhook-store'

/** The URL as records and events show it: no query (it may carry a receiver's token). */
export const shownUrl = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/** The store's webhooks part, or the configuration error that says it has none. */
export function webhookStoreOf(store: PasscodeStore): WebhookStore {
  if (store.webhooks === undefined) throw new ConfigurationError('The passcode store keeps no webhooks (no `webhooks` part): SPEC §5.53 needs it')
  return store.webhooks
}
