import type { CommandSpec } from '../command'

const migrateCommand: CommandSpec = {
  path: ['migrate'],
  summary: 'create or upgrade the database tables (every command also does it first)',
  groups: ['storage'],
  examples: ['DATABASE_URL=postgres://app@db/app PASSCODE_AUTH_PEPPER=… passcode-auth migrate'],
  async run(context) {
    const runtime = await context.runtime({ migrate: false })
    const report = await runtime.migrate()
    context.output.result(
      { ...report, location: runtime.location },
      report.applied.length === 0
        ? `The schema in ${runtime.location} is up to date (version ${report.version}).`
        : `Applied migration${report.applied.length === 1 ? '' : 's'} ${report.applied.join(', ')} to ${runtime.location}; the schema is at version ${report.version}.`,
    )
  },
}

/** `migrate`. */
export const migrateCommands: readonly CommandSpec[] = [migrateCommand]
