import { auditKeyring, type AuditKeyring } from '../../core/audit-keys'
import { auditKeyBytes, type AuditKey } from './options'

/**
 * The service's audit keyring from its checked `auditKeys` option (none: plain SHA-256
 * records, SPEC §5.44). The bytes stay inside the keyring's functions.
 */
export function createAuditKeyring(keys: readonly AuditKey[] | undefined): AuditKeyring {
  return auditKeyring((keys ?? []).map(({ id, key }) => ({ id, key: Uint8Array.from(auditKeyBytes(key)!) })))
}
