import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { stopClusterIn } from './postgres'

/**
 * The global setup of the `shared` project (vitest.config.ts): a folder for the run's
 * shared PostgreSQL server (test/helpers/shared-postgres.ts), which the first file that
 * wants a database starts there; when the run ends, the server is stopped and both
 * folders removed. Nothing is started here: a run without such a file starts no server.
 */
export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'passcode-auth-shared-pg-'))
  project.provide('sharedPostgresFolder', folder)
  return () => {
    const described = join(folder, 'server.json')
    if (existsSync(described)) stopClusterIn((JSON.parse(readFileSync(described, 'utf8')) as { folder: string }).folder)
    rmSync(folder, { recursive: true, force: true })
  }
}
