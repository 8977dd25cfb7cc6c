import type { AccountPasscodeRecord } from '../../core/passcode-records'
import { InvalidInputError } from '../../core/errors'
import { normalizePartnerBinding } from '../../core/rules'
import type { PartnerRegistry } from '../../ports/partner-registry'
import { storeCall } from '../deadline'

/**
 * The binding to store for a create or an edit (SPEC §5.25): names normalised, sorted
 * and without repeats, each whitelisted now. A name that is not is an
 * `ERR_INVALID_INPUT` on the field `partners` that says which name.
 */
export async function checkedBinding(registry: PartnerRegistry, names: readonly string[] | null): Promise<readonly string[] | null> {
  const binding = normalizePartnerBinding(names)
  if (binding === null) return null
  for (const name of binding) {
    const whitelisted = await storeCall(async () => registry.isWhitelisted(name))
    if (!whitelisted) throw new InvalidInputError('partners', `${JSON.stringify(name)} is not a whitelisted partner`)
  }
  return binding
}

/**
 * For each record, the bound partners that are no longer whitelisted: a passcode
 * bound only to removed partners succeeds for no partner, and its view says so.
 * Asks the registry once per distinct name.
 */
export async function partnersNotWhitelisted(
  registry: PartnerRegistry,
  records: readonly AccountPasscodeRecord[],
): Promise<Map<string, readonly string[]>> {
  const names = new Set<string>()
  for (const record of records) for (const name of record.partners ?? []) names.add(name)
  const missing = new Set<string>()
  for (const name of names) {
    if (!(await storeCall(async () => registry.isWhitelisted(name)))) missing.add(name)
  }
  const out = new Map<string, readonly string[]>()
  for (const record of records) {
    const gone = (record.partners ?? []).filter((name) => missing.has(name))
    if (gone.length > 0) out.set(record.id, gone)
  }
  return out
}
