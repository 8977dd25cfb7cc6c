import type { CommandSpec } from '../command'
import { CliError } from '../exit-codes'

const name = [{ name: 'name', description: 'the partner name, as partners send it in ?partner= (compared case-insensitively)' }] as const

const add: CommandSpec = {
  path: ['partners', 'add'],
  summary: 'whitelist a partner for GET /v1/connect',
  positionals: name,
  groups: ['storage'],
  examples: ['passcode-auth partners add acme'],
  async run(context) {
    const { partners } = await context.runtime()
    const given = context.positionals[0]!
    if (!(await partners.add(given))) {
      throw new CliError('ERR_DUPLICATE_PARTNER', `Partner "${given.trim().toLowerCase()}" is already whitelisted`)
    }
    const stored = given.trim().toLowerCase()
    context.output.result({ added: stored }, `Whitelisted partner "${stored}".`)
  },
}

const list: CommandSpec = {
  path: ['partners', 'list'],
  summary: 'list the whitelisted partners',
  groups: ['storage'],
  examples: ['passcode-auth partners list --json'],
  async run(context) {
    const { partners } = await context.runtime()
    const names = await partners.list()
    context.output.result({ partners: names }, names.length === 0 ? 'No partner is whitelisted.' : names.join('\n'))
  },
}

const remove: CommandSpec = {
  path: ['partners', 'remove'],
  summary: 'remove a partner from the whitelist; its connects get 403 at once',
  positionals: name,
  groups: ['storage'],
  examples: ['passcode-auth partners remove acme'],
  async run(context) {
    const { partners } = await context.runtime()
    const given = context.positionals[0]!
    const stored = given.trim().toLowerCase()
    if (!(await partners.remove(given))) throw new CliError('ERR_NOT_FOUND', `Partner "${stored}" is not whitelisted`)
    context.output.result({ removed: stored }, `Removed partner "${stored}" from the whitelist.`)
  },
}

/** `partners add|list|remove`. */
export const partnersCommands: readonly CommandSpec[] = [add, list, remove]
