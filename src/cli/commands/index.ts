import type { CommandSpec } from '../command'
import { accountsCommands } from './accounts'
import { auditCommands } from './audit'
import { dashboardCommands } from './dashboard'
import { keysCommands } from './keys'
import { leaksCommands } from './leaks'
import { migrateCommands } from './migrate'
import { notifyCommands } from './notify'
import { partnersCommands } from './partners'
import { passcodesCommands } from './passcodes'
import { peppersCommands } from './peppers'
import { serveCommands } from './serve'
import { usersCommands } from './users'
import { webhooksCommands } from './webhooks'

/** Every subcommand, in the order `passcode-auth --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  ...serveCommands,
  ...passcodesCommands,
  ...usersCommands,
  ...accountsCommands,
  ...auditCommands,
  ...webhooksCommands,
  ...dashboardCommands,
  ...partnersCommands,
  ...notifyCommands,
  ...migrateCommands,
  ...peppersCommands,
  ...keysCommands,
  ...leaksCommands,
]
