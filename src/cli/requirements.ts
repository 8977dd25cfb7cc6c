import type { MailConfig, StorageConfig } from './config'
import { CliError } from './exit-codes'

/** An optional package a command may need (a peer dependency of passcode-auth). */
interface Requirement {
  /** The package name, as `npm install` takes it. */
  readonly name: string
  /** Why the command needs it, in the operator's terms. */
  readonly neededFor: string
  /** What to do instead of installing it, when there is another way. */
  readonly otherwise?: string
  readonly load: () => Promise<unknown>
}

function requirementsOf(storage: StorageConfig | undefined, mail: MailConfig | undefined): Requirement[] {
  const requirements: Requirement[] = []
  if (storage?.kind === 'embedded') {
    requirements.push({
      name: '@electric-sql/pglite',
      neededFor: 'The embedded store (a data folder)',
      otherwise: 'or set DATABASE_URL to use a PostgreSQL server',
      load: () => import('@electric-sql/pglite'),
    })
  }
  if (storage?.kind === 'postgres') {
    requirements.push({ name: 'pg', neededFor: 'DATABASE_URL (a PostgreSQL server)', load: () => import('pg') })
  }
  if (mail?.kind === 'smtp') {
    requirements.push({ name: 'nodemailer', neededFor: 'PASSCODE_AUTH_SMTP_URL (sending emails)', load: () => import('nodemailer') })
  }
  return requirements
}

/**
 * Loads every optional package that the command's settings call for (the database
 * driver, nodemailer for SMTP) before the command creates or writes anything, so that
 * a missing one leaves the data folder as it was and is reported with the line that
 * installs it. The reference server itself needs nothing beyond passcode-auth: it runs
 * on `node:http`.
 *
 * @example
 * ```ts
 * await checkRequirements(storageConfig(io, flags), mailConfig(io, flags))
 * // CliError: The embedded store (a data folder) needs the package @electric-sql/pglite: npm install @electric-sql/pglite (or set DATABASE_URL …)
 * ```
 */
export async function checkRequirements(storage: StorageConfig | undefined, mail: MailConfig | undefined): Promise<void> {
  for (const requirement of requirementsOf(storage, mail)) {
    try {
      await requirement.load()
    } catch (error) {
      const fix = `npm install ${requirement.name}${requirement.otherwise === undefined ? '' : ` (${requirement.otherwise})`}`
      throw new CliError('ERR_MISSING_PACKAGE', `${requirement.neededFor} needs the package ${requirement.name}: ${fix}`, { cause: error })
    }
  }
}
