import type { CommandSpec } from '../command'
import { AUDIT_KEYS_VARIABLE, KEYS_VARIABLE, newKeyLine, newPepper } from '../encryption-keys'
import { CliError } from '../exit-codes'

// Visible ASCII but "," and ":", which separate the entries of the variable and an entry's id from its key.
const KEY_ID = /^[\x21-\x2b\x2d-\x39\x3b-\x7e]{1,64}$/

/** `k` (`a` for an audit key) and today's date in UTC (`k20261126`): ids that sort by age, so a list reads newest first. */
const todaysId = (prefix: 'k' | 'a', now = new Date()) => `${prefix}${now.toISOString().slice(0, 10).replaceAll('-', '')}`

const generate: CommandSpec = {
  path: ['keys', 'generate'],
  summary: `print a new encryption key line for ${KEYS_VARIABLE} (--audit: for ${AUDIT_KEYS_VARIABLE}; --pepper: a new pepper for PASSCODE_AUTH_PEPPER)`,
  options: {
    id: { type: 'string', value: '<keyId>', description: "the key id (default k, or a with --audit, and today's date in UTC, like k20261126)" },
    audit: { type: 'boolean', description: `print a key line for ${AUDIT_KEYS_VARIABLE}, which signs the audit trail (put it first in the list)` },
    pepper: { type: 'boolean', description: 'print a pepper (32 random bytes in base64url) instead of a key line' },
  },
  groups: [],
  examples: [
    'passcode-auth keys generate',
    'passcode-auth keys generate --id k2',
    'passcode-auth keys generate --audit',
    'passcode-auth keys generate --pepper',
  ],
  check(flags) {
    if (typeof flags.id === 'string' && !KEY_ID.test(flags.id)) {
      throw new CliError('ERR_USAGE', 'Invalid --id: must be 1 to 64 visible ASCII characters, without "," or ":"', { setting: '--id' })
    }
    if (flags.pepper === true && flags.id !== undefined)
      throw new CliError('ERR_USAGE', '--id is for a key line, not with --pepper', { setting: '--id' })
    if (flags.pepper === true && flags.audit === true)
      throw new CliError('ERR_USAGE', '--audit is for a key line, not with --pepper', { setting: '--audit' })
  },
  async run(context) {
    const { flags, output } = context
    // The one output is what was asked for, on stdout: a secret to paste into a secret store.
    if (flags.pepper === true) {
      const pepper = newPepper()
      output.result({ pepper }, pepper)
      return
    }
    const line = newKeyLine(typeof flags.id === 'string' ? flags.id : todaysId(flags.audit === true ? 'a' : 'k'))
    output.result({ line }, line)
  },
}

/** `keys generate`. */
export const keysCommands: readonly CommandSpec[] = [generate]
