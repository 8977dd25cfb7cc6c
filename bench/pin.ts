/**
 * Pins processes to cores with `taskset` (Linux, util-linux), so that a benchmark on a
 * small machine can measure as a fleet runs: the application on one core, the
 * database side (PostgreSQL and PgBouncer) on another, instead of the three sharing
 * every core, where throughput is bounded by the sum of their CPU per call.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/** Why pinning cannot run here, or `undefined` when it can. */
export function pinUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'pinning needs Linux (taskset)'
  if (availableParallelism() < 2) return 'pinning needs at least 2 cores'
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
  } catch {
    return 'taskset is not installed (util-linux)'
  }
  return undefined
}

/**
 * Pins every thread of each process in `pids` to the cores `cpus` (taskset's list form:
 * `0`, `1`, `0-1`). Throws when a process that is still running cannot be pinned (a
 * user who may not change its affinity): a run that says it pinned has pinned.
 */
export function pinProcesses(pids: readonly number[], cpus: string): void {
  for (const pid of pids) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
    } catch (error) {
      // A process that ended between listing and pinning has nothing to pin.
      if (existsSync(`/proc/${pid}`)) throw error
    }
  }
}

/** Every core of this machine, in taskset's list form. */
export const ALL_CPUS = `0-${availableParallelism() - 1}`
