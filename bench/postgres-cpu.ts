/**
 * The CPU time a local PostgreSQL server has used: its postmaster and every process
 * under it (backends, walwriter, …), read from /proc. Linux only, and only for a
 * server on this machine that this user may inspect; otherwise `undefined`.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

/** What the sampler needs to ask the server where it keeps its data. */
interface Queryable {
  query(text: string): Promise<{ rows: Record<string, unknown>[] }>
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

function ticksOf(pid: number): number {
  try {
    // Fields after the command (which may contain spaces) start at ") ".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime, stime, cutime, cstime are fields 14–17 of stat, i.e. 11–14 here.
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
  } catch {
    return 0 // the process ended between listing and reading; its time is in the parent's cutime
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/**
 * The process id of a local server's postmaster, read from its `postmaster.pid`;
 * `undefined` off Linux, for a server elsewhere, or for a role that may not see where
 * the server keeps its data.
 */
export async function postmasterPid(db: Queryable): Promise<number | undefined> {
  if (process.platform !== 'linux') return undefined
  let dataDirectory: string
  try {
    dataDirectory = String((await db.query('SHOW data_directory')).rows[0]?.data_directory)
  } catch {
    return undefined // not a superuser, or not PostgreSQL
  }
  const pidFile = `${dataDirectory}/postmaster.pid`
  if (!existsSync(pidFile)) return undefined
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
  return Number.isInteger(postmaster) && existsSync(`/proc/${postmaster}/stat`) ? postmaster : undefined
}

/** `pid` and every process under it, now (Linux). */
export function processTree(pid: number): number[] {
  const tree: number[] = []
  const pending = [pid]
  while (pending.length > 0) {
    const next = pending.pop()!
    tree.push(next)
    pending.push(...childrenOf(next))
  }
  return tree
}

/**
 * Returns a function that reads the server's CPU time so far in ms (user + system,
 * of the postmaster and all its descendants, ended ones included).
 */
export async function postgresCpuSampler(db: Queryable): Promise<(() => number) | undefined> {
  const postmaster = await postmasterPid(db)
  if (postmaster === undefined) return undefined
  return () => {
    let ticks = 0
    for (const pid of processTree(postmaster)) ticks += ticksOf(pid)
    return (ticks / TICKS_PER_SECOND) * 1000
  }
}
