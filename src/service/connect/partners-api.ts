import type { PartnerRegistry } from '../../ports/partner-registry'
import { storeCall } from '../deadline'

/** The partner whitelist as the dashboard shows it: `auth.partners`. */
export interface PartnersApi {
  /**
   * Every whitelisted partner name (normalised: trimmed, lower-cased), sorted; `null`
   * when the registry cannot list (its `list()` is optional). Whitelisting is the
   * operator's job (SPEC §4), so there is nothing here to change it.
   *
   * @example
   * ```ts
   * await auth.partners.list() // ['acme', 'globex']
   * ```
   */
  list(): Promise<string[] | null>
}

/** Builds `auth.partners` over the partner registry. */
export function createPartnersApi(registry: PartnerRegistry): PartnersApi {
  return {
    async list() {
      if (registry.list === undefined) return null
      const names = await storeCall(async () => registry.list!())
      return [...names].sort()
    },
  }
}
