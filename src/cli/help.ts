import { GROUP_OPTIONS, type CommandSpec, type OptionSpec } from './command'

const GROUP_TITLES = {
  storage: 'Storage',
  actor: 'Acting as',
  mail: 'Mail',
  server: 'Server',
  output: 'Output',
} as const

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const entries = Object.entries(options).map(([flag, spec]) => {
    const left = `${flag === 'help' ? '-h, ' : ''}--${flag}${spec.value ? ` ${spec.value}` : ''}`
    return [left, `${spec.description}${spec.required ? ' (required)' : ''}`] as const
  })
  const width = Math.max(...entries.map(([left]) => left.length))
  return entries.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`)
}

/** The usage line: the words, the positionals and the required flags. */
export function usageLine(command: CommandSpec): string {
  const positionals = (command.positionals ?? []).map((p) => `<${p.name}>`)
  const required = Object.entries(command.options ?? {})
    .filter(([, spec]) => spec.required)
    .map(([flag, spec]) => `--${flag} ${spec.value ?? ''}`.trimEnd())
  return ['passcode-auth', ...command.path, ...positionals, ...required, '[options]'].join(' ')
}

/** `passcode-auth <command> --help`. */
export function commandHelp(command: CommandSpec): string {
  const lines = [`passcode-auth ${command.path.join(' ')}: ${command.summary}`, '', 'Usage:', `  ${usageLine(command)}`]
  if (command.positionals?.length) {
    lines.push('', 'Arguments:')
    const width = Math.max(...command.positionals.map((p) => p.name.length + 2))
    for (const p of command.positionals) lines.push(`  ${`<${p.name}>`.padEnd(width)}  ${p.description}`)
  }
  if (command.options && Object.keys(command.options).length > 0) lines.push('', 'Options:', ...optionLines(command.options))
  for (const group of [...command.groups, 'output'] as const) {
    lines.push('', `${GROUP_TITLES[group]}:`, ...optionLines(GROUP_OPTIONS[group]))
  }
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((example) => `  ${example}`))
  return `${lines.join('\n')}\n`
}

/** `passcode-auth <group> --help`: the group's subcommands. */
export function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  const members = commands.filter((command) => command.path[0] === group && command.path.length > 1)
  const width = Math.max(...members.map((command) => command.path.join(' ').length))
  return [
    `passcode-auth ${group}: subcommands`,
    '',
    ...members.map((command) => `  ${command.path.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    `Run "passcode-auth ${group} <subcommand> --help" for its options.`,
    '',
  ].join('\n')
}

/** `passcode-auth --help`. */
export function topHelp(commands: readonly CommandSpec[], version: string): string {
  const width = Math.max(...commands.map((command) => command.path.join(' ').length))
  return [
    `passcode-auth ${version}: account-ID + passcode authentication, the reference server and its management CLI`,
    '',
    'Usage:',
    '  passcode-auth <command> [subcommand] [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.path.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    'Every command takes --help and --json. Storage is the data folder .data/passcode-auth',
    '(PASSCODE_AUTH_DATA_DIR), or PostgreSQL when DATABASE_URL is set. Management commands act',
    'as --as <userId> (default operator) with --role admin unless told otherwise.',
    '',
    'Exit codes: 0 done, 1 unexpected error, 2 bad command line or setting (a missing or malformed',
    'key or pepper included: "passcode-auth keys generate" makes them), 3 refused by a rule,',
    '4 not found, 5 storage or mailer unavailable. Guide: docs/cli.md',
    '',
  ].join('\n')
}
