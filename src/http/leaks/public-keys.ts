import { isPublicKeyPem } from './signature'

/** A public key leak reports may be signed with: GitHub's key identifier and the PEM (SPKI, P-256). */
export interface LeakReportKey {
  /** The `Github-Public-Key-Identifier` it is named by. */
  readonly id: string
  /** `-----BEGIN PUBLIC KEY----- …`. */
  readonly pem: string
}

/**
 * Reads GitHub's published key list (`GET https://api.github.com/meta/public_keys/secret_scanning`:
 * `{ public_keys: [{ key_identifier, key, is_current }] }`) into the `publicKeys` of
 * `leakReportHandler`. Every key is kept, current or not: GitHub names the key it signed
 * with, and a report signed just before a rotation still verifies. Throws a `TypeError`
 * when the list does not have that shape.
 *
 * @param list - the parsed JSON of GitHub's answer
 * @example
 * ```ts
 * import { githubPublicKeys, leakReportHandler } from 'passcode-auth/fetch'
 *
 * const list = await fetch('https://api.github.com/meta/public_keys/secret_scanning').then((r) => r.json())
 * const handler = leakReportHandler(auth, { publicKeys: githubPublicKeys(list) })
 * ```
 */
export function githubPublicKeys(list: unknown): LeakReportKey[] {
  const keys = (list as { public_keys?: unknown } | null)?.public_keys
  if (!Array.isArray(keys)) throw new TypeError("Expected GitHub's key list: { public_keys: [{ key_identifier, key, is_current }] }")
  return keys.map((entry: unknown, index) => {
    const { key_identifier: id, key: pem } = (entry ?? {}) as { key_identifier?: unknown; key?: unknown }
    if (typeof id !== 'string' || id === '' || !isPublicKeyPem(pem)) {
      throw new TypeError(`public_keys[${index}] needs a key_identifier and a PEM public key`)
    }
    return { id, pem }
  })
}

/** Checks `publicKeys` when a handler is made; returns an error message or `undefined`. */
export function publicKeysProblem(value: unknown): string | undefined {
  if (typeof value === 'function') return undefined
  if (!Array.isArray(value) || value.length === 0) return 'must be a non-empty array of { id, pem }, or a function returning one'
  for (const key of value as unknown[]) {
    const { id, pem } = (key ?? {}) as { id?: unknown; pem?: unknown }
    if (typeof id !== 'string' || id === '') return 'each key needs an id (the Github-Public-Key-Identifier)'
    if (!isPublicKeyPem(pem)) return 'each key needs a pem: -----BEGIN PUBLIC KEY----- …'
  }
  return undefined
}
