/**
 * Prints the functions with the most self time in a `.cpuprofile` written by
 * `node --cpu-prof`, with their share of all samples: the evidence behind a missed goal.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/in-process.ts
 *   npx tsx bench/profile-summary.ts /tmp/prof/*.cpuprofile [top=25]
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly hitCount?: number
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
  const files = process.argv.slice(2).filter((arg) => !arg.startsWith('top='))
  const top = Number(process.argv.find((arg) => arg.startsWith('top='))?.slice(4) ?? 25)
  for (const file of files) {
    console.log(`\n${file}`)
    for (const line of summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), top)) console.log(line)
  }
}
