import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { z } from 'zod'
import type { AuditKey, EncryptionKey } from '../index'
import { SETTINGS } from './config'
import { dataFolderPaths } from './data-folder'
import { CliError } from './exit-codes'
import { ENCRYPTION_KEY_BYTES, MIN_AUDIT_KEY_BYTES } from './setting-rules'

/** The pepper, encryption keys and audit keys an embedded data folder runs with. */
export interface EmbeddedSecrets {
  readonly pepper: string
  readonly encryptionKeys: readonly EncryptionKey[] | undefined
  readonly auditKeys: readonly AuditKey[]
  /** What this call generated and wrote to `secrets.json`, for the operator's notice. */
  readonly generated: readonly ('pepper' | 'encryption key' | 'audit key')[]
  /** Problems worth a notice (a readable secrets file). */
  readonly warnings: readonly string[]
}

// secrets.json holds the same text as the environment variables, so either can
// replace the other.
const fileSchema = z.object({ pepper: SETTINGS.pepper.schema, encryptionKeys: SETTINGS.encryptionKeys.schema, auditKeys: SETTINGS.auditKeys.schema })

function readSecretsFile(file: string): z.output<typeof fileSchema> | undefined {
  if (!existsSync(file)) return undefined
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    throw new CliError('ERR_DATA_FOLDER', `${file} is not valid JSON; restore it from a backup or set PASSCODE_AUTH_PEPPER`)
  }
  const parsed = fileSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new CliError('ERR_DATA_FOLDER', `${file}: "${issue?.path.join('.')}" ${issue?.message ?? 'is invalid'}`)
  }
  return parsed.data
}

/**
 * The secrets of an embedded data folder: the environment wins, then `secrets.json`.
 * On a folder without a database yet, missing ones are generated into `secrets.json`
 * (mode 0600); their values are never printed. A folder that has a database but no
 * pepper is refused: a new pepper would silently invalidate every passcode in it. An
 * audit key is generated on any folder that has none: the records written before it
 * stay verifiable as they are, and the chain is keyed from the next one (SPEC §5.44).
 */
export function embeddedSecrets(
  dir: string,
  fresh: boolean,
  fromEnv: { pepper?: string | undefined; encryptionKeys?: readonly EncryptionKey[] | undefined; auditKeys?: readonly AuditKey[] | undefined },
): EmbeddedSecrets {
  const file = dataFolderPaths(dir).secrets
  const stored = readSecretsFile(file)
  const warnings: string[] = []
  if (stored !== undefined && process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    warnings.push(`${file} can be read by other users; run: chmod 600 ${file}`)
  }
  let pepper = fromEnv.pepper ?? stored?.pepper
  let encryptionKeys = fromEnv.encryptionKeys ?? stored?.encryptionKeys
  let auditKeys = fromEnv.auditKeys ?? stored?.auditKeys
  const generated: ('pepper' | 'encryption key' | 'audit key')[] = []
  if (pepper === undefined && !fresh) {
    throw new CliError(
      'ERR_DATA_FOLDER',
      `The data folder ${dir} holds a database but no secrets.json, and PASSCODE_AUTH_PEPPER is not set: set it to the pepper the passcodes were created with (a new one would invalidate them all)`,
      { setting: 'PASSCODE_AUTH_PEPPER' },
    )
  }
  const toWrite: Record<string, string> = {}
  if (stored?.pepper !== undefined) toWrite.pepper = stored.pepper
  if (stored?.encryptionKeys !== undefined) toWrite.encryptionKeys = stored.encryptionKeys.map((k) => `${k.id}:${String(k.key)}`).join(',')
  if (stored?.auditKeys !== undefined) toWrite.auditKeys = stored.auditKeys.map((k) => `${k.id}:${String(k.key)}`).join(',')
  if (pepper === undefined) {
    pepper = randomBytes(32).toString('base64url')
    toWrite.pepper = pepper
    generated.push('pepper')
  }
  if (encryptionKeys === undefined && fresh) {
    const key = { id: 'k1', key: randomBytes(ENCRYPTION_KEY_BYTES).toString('base64url') }
    encryptionKeys = [key]
    toWrite.encryptionKeys = `${key.id}:${key.key}`
    generated.push('encryption key')
  }
  if (auditKeys === undefined) {
    const key = { id: 'a1', key: randomBytes(MIN_AUDIT_KEY_BYTES).toString('base64url') }
    auditKeys = [key]
    toWrite.auditKeys = `${key.id}:${key.key}`
    generated.push('audit key')
  }
  if (generated.length > 0) {
    // Written aside and renamed, so that a crash never leaves half a file.
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(toWrite, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    renameSync(temporary, file)
  }
  return { pepper, encryptionKeys, auditKeys, generated, warnings }
}
