import { benchmarkFramework, VARIANTS_OF } from './http-throughput'
const fw = process.argv[2] as 'express'
;(VARIANTS_OF as any)[fw] = process.argv[3]!.split(',')
const r = await benchmarkFramework(fw, { rounds: Number(process.argv[4] ?? 6), seconds: 3, warmupSeconds: 2, connections: 50 }, console.log)
console.log(JSON.stringify({ ratios: r.ratios, cpuRatios: r.cpuRatios }))
