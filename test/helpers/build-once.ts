import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { isAlive } from '../../src/cli/data-folder'

/**
 * Makes `target` (a file or a folder, under a cache folder that exists) once for every
 * test process on this machine: test files start in parallel, and on a fresh clone each
 * would otherwise pay the same seconds of CPU to make the same thing. One process takes
 * a lock file beside `target` and calls `make(building)`, which creates `building` (a
 * path beside `target` that does not exist yet); `building` is then renamed to `target`,
 * so a reader never sees half of it. The others wait. A lock whose process is gone (or
 * that is older than `maxMs`, two minutes by default: a make that may take longer says
 * so) is taken over; a process gives up waiting `maxMs` plus one minute after it started.
 *
 * @example
 * ```ts
 * await buildOnce(dumpFile, async (building) => writeFileSync(building, await makeDump()))
 * ```
 */
export async function buildOnce(target: string, make: (building: string) => Promise<void>, { maxMs = 120_000 } = {}): Promise<void> {
  const lock = `${target}.lock`
  for (const started = Date.now(); !exists(target);) {
    if (!takeLock(lock, maxMs)) {
      if (Date.now() - started > maxMs + 60_000) throw new Error(`gave up waiting for ${lock}`)
      await sleep(100)
      continue
    }
    try {
      if (exists(target)) break
      const building = `${target}.building-${process.pid}`
      rmSync(building, { recursive: true, force: true })
      try {
        await make(building)
        try {
          renameSync(building, target)
        } catch (error) {
          // Made twice after a lock was taken over: the other one is as good.
          if (!exists(target)) throw error
        }
      } finally {
        rmSync(building, { recursive: true, force: true })
      }
    } finally {
      rmSync(lock, { force: true })
    }
  }
}

const exists = (file: string): boolean => statSync(file, { throwIfNoEntry: false }) !== undefined

/** Creates `lock` holding this process's id, or removes a stale one so that the next try takes it. */
function takeLock(lock: string, maxMs: number): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' })
    return true
  } catch {
    let holder: number
    let age: number
    try {
      holder = Number(readFileSync(lock, 'utf8'))
      age = Date.now() - statSync(lock).mtimeMs
    } catch {
      return false // released meanwhile
    }
    // Empty for five seconds: its process died between creating and writing it.
    if (age > maxMs || (holder > 0 ? !isAlive(holder) : age > 5_000)) rmSync(lock, { force: true })
    return false
  }
}
