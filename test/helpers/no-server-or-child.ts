import childProcess, { ChildProcess } from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'
import { Server } from 'node:net'
import { afterAll, beforeAll } from 'vitest'

/**
 * A setup file of the unit tests (`unitTests` in vitest.config.ts, `npm run test:unit`):
 * they need no server, browser, database or child process, which is what keeps them
 * quick. While a unit file runs, starting a child process (which a browser or a
 * database cluster also needs) or listening on a socket (every HTTP, SMTP or PostgreSQL
 * server) throws; move a file that needs one out of `unitTests`. Everything is given
 * back after the file, as a file that shares a worker must.
 */
const refuse = (what: string) => () => {
  throw new Error(`a unit test ${what} (test/helpers/no-server-or-child.ts): move the file out of unitTests in vitest.config.ts`)
}

// Node's own method, missing from its type declarations.
const childPrototype = ChildProcess.prototype as ChildProcess & { spawn: (options: unknown) => void }
const SYNC_CHILDREN = ['spawnSync', 'execSync', 'execFileSync'] as const
const saved = {
  spawn: childPrototype.spawn,
  listen: Server.prototype.listen,
  sync: SYNC_CHILDREN.map((name) => childProcess[name]),
}

beforeAll(() => {
  // Every asynchronous child (spawn, exec, execFile, fork) starts through ChildProcess#spawn.
  childPrototype.spawn = refuse('started a child process')
  Server.prototype.listen = refuse('listened on a socket')
  for (const name of SYNC_CHILDREN) Object.assign(childProcess, { [name]: refuse('started a child process') })
  syncBuiltinESMExports()
})

afterAll(() => {
  childPrototype.spawn = saved.spawn
  Server.prototype.listen = saved.listen
  SYNC_CHILDREN.forEach((name, index) => Object.assign(childProcess, { [name]: saved.sync[index] }))
  syncBuiltinESMExports()
})
