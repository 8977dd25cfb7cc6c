/**
 * Loads one URL with autocannon, for profiling a server started by hand:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/http-server.ts fastify auth &
 *   npx tsx bench/load.ts '<the JSON line the server printed>' 10
 */
import { loadAutocannon } from './peers'

const target = JSON.parse(process.argv[2] ?? '{}') as { url: string; headers: Record<string, string> }
const seconds = Number(process.argv[3] ?? 10)
const autocannon = await loadAutocannon()
const result = await autocannon({ url: target.url, headers: target.headers, connections: 50, duration: seconds })
console.log(`${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`)
