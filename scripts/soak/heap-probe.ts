/*
 * Preloaded into the reference server in soak runs only (`node --expose-gc --import
 * tsx --import ./scripts/soak/heap-probe.ts src/cli/index.ts serve`), with an IPC
 * channel to the soak runner. On { type: 'heap' } it forces a full collection and
 * answers with the heap in use, so the runner samples the live set, not garbage that
 * happens not to be collected yet. Nothing is added to the server's HTTP routes.
 */

interface HeapRequest {
  readonly type: 'heap'
  readonly id: number
}

const gc = (globalThis as { gc?: () => void }).gc

// Any message may arrive; only a heap request is answered.
process.on('message', (message: Partial<HeapRequest> | undefined) => {
  if (message?.type !== 'heap' || process.send === undefined) return
  if (gc === undefined) {
    process.send({ type: 'heap', id: message.id, error: 'start the server with --expose-gc' })
    return
  }
  // Twice: the first pass may run finalizers that free more on the second.
  gc()
  gc()
  const { heapUsed, rss } = process.memoryUsage()
  process.send({ type: 'heap', id: message.id, heapUsed, rss })
})
// The channel must not keep the server alive once `serve` has shut down.
process.channel?.unref()
