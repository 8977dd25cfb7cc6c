/**
 * Prints the functions with the most self time in a `.cpuprofile` written by
 * `node --cpu-prof`, with their share of all samples: the evidence behind a missed goal.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/in-process.ts
 *   npx tsx bench/profile-summary.ts /tmp/prof/*.cpuprofile [top=25] [by=area] [until=<ms>]
 *
 * `by=area` groups the samples by where they run instead (PGlite's WebAssembly, its
 * JavaScript, module loading, passcode-auth, each other package, idle, GC); `until`
 * keeps the first <ms> of the profile (for `serve`: up to the time it printed its address).
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly hitCount?: number
  readonly children?: readonly number[]
}

interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples?: readonly number[]
  readonly timeDeltas?: readonly number[]
}

/** Where a sample runs, from its stack (innermost first). */
function areaOf(stack: readonly ProfileNode[]): string {
  const [leaf] = stack
  const name = leaf?.callFrame.functionName ?? ''
  if (name === '(idle)') return 'idle (waiting: files, timers, other threads)'
  if (name === '(garbage collector)') return 'GC'
  if (name === '(program)') return '(program): V8 and Node native code'
  if (stack.some((node) => node.callFrame.url.startsWith('node:internal/modules/'))) return 'module loading (resolve, read, compile)'
  const url = leaf?.callFrame.url ?? ''
  if (url.startsWith('wasm://')) return 'PGlite: its WebAssembly (PostgreSQL)'
  const inner = stack.find((node) => node.callFrame.url !== '' && !node.callFrame.url.startsWith('node:'))?.callFrame.url ?? ''
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(inner)?.[1]
  if (pkg === '@electric-sql/pglite') return 'PGlite: its JavaScript (loader, file system)'
  if (pkg !== undefined) return pkg
  if (inner !== '') return 'passcode-auth (dist/, src/)'
  return 'Node internals'
}

/** Shares of samples by {@link areaOf}, largest first, over the first `untilMs` of the profile. */
export function summarizeByArea(profile: Profile, untilMs = Infinity): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const counts = new Map<string, number>()
  let total = 0
  let elapsed = 0
  const samples = profile.samples ?? []
  for (let i = 0; i < samples.length; i++) {
    elapsed += (profile.timeDeltas?.[i] ?? 0) / 1000
    if (elapsed > untilMs) break
    const stack: ProfileNode[] = []
    for (let id: number | undefined = samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!)
    const area = areaOf(stack)
    counts.set(area, (counts.get(area) ?? 0) + 1)
    total++
  }
  return [
    `${total} samples over ${Math.min(elapsed, untilMs).toFixed(0)} ms`,
    ...[...counts].sort((a, b) => b[1] - a[1]).map(([area, hits]) => `${((100 * hits) / total).toFixed(1).padStart(5)} %  ${area}`),
  ]
}

/** Self-time shares of one profile, largest first. */
export function summarizeProfile(profile: { nodes: readonly ProfileNode[]; samples?: readonly number[] }, top = 25): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const counts = new Map<string, number>()
  let total = 0
  const add = (node: ProfileNode | undefined, hits: number) => {
    if (node === undefined) return
    const { functionName, url, lineNumber } = node.callFrame
    const file = url.replace(/^.*\/(node_modules\/(@[^/]+\/)?[^/]+|src|bench)\//, '$1/')
    const key = `${functionName || '(anonymous)'} ${file}${url ? `:${lineNumber + 1}` : ''}`
    counts.set(key, (counts.get(key) ?? 0) + hits)
    total += hits
  }
  if (profile.samples !== undefined) for (const id of profile.samples) add(byId.get(id), 1)
  else for (const node of profile.nodes) add(node, node.hitCount ?? 0)
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, hits]) => `${((100 * hits) / total).toFixed(1).padStart(5)} %  ${key}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const option = (name: string) => process.argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1)
  const files = process.argv.slice(2).filter((arg) => !/^(top|by|until)=/.test(arg))
  const top = Number(option('top') ?? 25)
  for (const file of files) {
    console.log(`\n${file}`)
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
    const lines = option('by') === 'area' ? summarizeByArea(profile, Number(option('until') ?? Infinity)) : summarizeProfile(profile, top)
    for (const line of lines) console.log(line)
  }
}
