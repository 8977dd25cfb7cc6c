import { type CreatePasscodeInput } from '../index'
import type { Flags } from './config'
import { CliError } from './exit-codes'

// The restriction flags of `passcodes create|edit` and `users grant` (scopes, addresses,
// metadata, tags): their forms, the input they make, and the lines that show them. The
// rules of each value are the service's.

/** `--scope`, repeated or separated by commas: the names; whether each is declared is the service's rule. */
export function parseScopes(values: unknown): string[] {
  const list = (Array.isArray(values) ? (values as string[]) : [String(values)])
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '')
  if (list.length === 0) throw new CliError('ERR_USAGE', 'Invalid --scope: must name a scope (or use --all-scopes)', { setting: '--scope' })
  return list
}

/** `--allow-address`, repeated: CIDR ranges; each range's form is the service's rule (named with its index). */
export function parseAddresses(values: unknown): string[] {
  return (Array.isArray(values) ? (values as string[]) : [String(values)]).map((range) => range.trim())
}

/** `--metadata`: a JSON object (the 1 KiB bound is the service's rule), or `null` to remove it. */
export function parseMetadata(text: string): CreatePasscodeInput['metadata'] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return value as CreatePasscodeInput['metadata']
  throw new CliError('ERR_USAGE', 'Invalid --metadata: must be a JSON object such as \'{"plan":"gold"}\', or null to remove it', {
    setting: '--metadata',
  })
}

/** `--tag`, repeated: the tags (their rule is the service's). */
export function parseTags(values: unknown): string[] {
  return Array.isArray(values) ? (values as string[]) : [String(values)]
}

/** Flags given together that say opposite things: a usage error naming both. */
function exclusive(flags: Flags, command: string, pairs: readonly (readonly [string, string])[]): void {
  for (const [one, other] of pairs) {
    if (flags[one] !== undefined && flags[other] === true) throw new CliError('ERR_USAGE', `"${command}" takes --${one} or --${other}, not both`)
  }
}

/** The restrictions of a passcode's result lines: scopes, addresses, tags, metadata; nothing for an unrestricted one. */
export function restrictionLines(passcode: {
  readonly scopes: readonly string[] | null
  readonly unknownScopes?: readonly string[]
  readonly allowedAddresses: readonly string[]
  readonly tags?: readonly string[]
  readonly metadata?: Readonly<Record<string, unknown>> | null
}): string {
  const unknown = new Set(passcode.unknownScopes ?? [])
  const lines = [
    passcode.scopes === null
      ? ''
      : `  Scopes: ${passcode.scopes.map((scope) => (unknown.has(scope) ? `${scope} (unknown)` : scope)).join(', ') || 'none'}`,
    passcode.allowedAddresses.length === 0 ? '' : `  Allowed addresses: ${passcode.allowedAddresses.join(', ')}`,
    passcode.tags === undefined || passcode.tags.length === 0 ? '' : `  Tags: ${passcode.tags.join(', ')}`,
    passcode.metadata === undefined || passcode.metadata === null ? '' : `  Metadata: ${JSON.stringify(passcode.metadata)}`,
  ].filter((line) => line !== '')
  return lines.length === 0 ? '' : `\n${lines.join('\n')}`
}

/** The restriction flags of create and edit, as the service's input: only those given. */
export function restrictionsInput(flags: Flags) {
  return {
    ...(flags.scope !== undefined && { scopes: parseScopes(flags.scope) }),
    ...(flags['all-scopes'] === true && { scopes: null }),
    ...(flags['allow-address'] !== undefined && { allowedAddresses: parseAddresses(flags['allow-address']) }),
    ...(flags['any-address'] === true && { allowedAddresses: [] }),
    ...(flags.metadata !== undefined && { metadata: parseMetadata(String(flags.metadata)) }),
    ...(flags.tag !== undefined && { tags: parseTags(flags.tag) }),
    ...(flags['no-tags'] === true && { tags: [] }),
  }
}

/** Checks the restriction flags before anything is opened. */
export function checkRestrictions(flags: Flags, command: string): void {
  exclusive(flags, command, [
    ['scope', 'all-scopes'],
    ['allow-address', 'any-address'],
    ['tag', 'no-tags'],
  ])
  if (flags.scope !== undefined) parseScopes(flags.scope)
  if (flags.metadata !== undefined) parseMetadata(String(flags.metadata))
}

/** The restriction flags of `passcodes create` and `users grant` (scopes, addresses). */
export const restrictionOptions = {
  scope: {
    type: 'string',
    value: '<name>',
    multiple: true,
    description: 'grant only this declared scope (SPEC 5.48); repeat, or separate by commas (default: every scope)',
  },
  'all-scopes': { type: 'boolean', description: 'grant every declared scope (the default at create)' },
  'allow-address': {
    type: 'string',
    value: '<cidr>',
    multiple: true,
    description: 'accept calls only from this range, like 203.0.113.0/24 or 2001:db8::/32; repeat, up to 50 (default: any address)',
  },
} as const

export const labelOptions = {
  metadata: { type: 'string', value: '<json>', description: 'a JSON object of up to 1 KiB returned on the principal, like \'{"plan":"gold"}\'' },
  tag: { type: 'string', value: '<tag>', multiple: true, description: 'a tag to find it by; repeat, up to 20 (1 to 32 characters each)' },
} as const
