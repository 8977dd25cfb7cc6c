/** A body source the leak handler reads: a web stream (Fetch) or an async iterable of chunks (Node). */
export type BodySource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | null | undefined

/**
 * Reads a body up to `limit` bytes and no further: `undefined` as soon as it holds more
 * (the rest is not read; a web stream is cancelled), else the bytes.
 */
export async function readLimited(source: BodySource, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (source === null || source === undefined) return new Uint8Array(0)
  if (source instanceof Uint8Array) return source.byteLength > limit ? undefined : new Uint8Array(source)
  const chunks: Uint8Array[] = []
  let total = 0
  if ('getReader' in source) {
    const reader = source.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
      if (total > limit) {
        await reader.cancel().catch(() => undefined)
        return undefined
      }
      chunks.push(value)
    }
  } else {
    for await (const chunk of source) {
      total += chunk.byteLength
      // Leaving the loop ends the iteration: a Node stream is destroyed, nothing more is read.
      if (total > limit) return undefined
      chunks.push(chunk)
    }
  }
  const body = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    body.set(chunk, at)
    at += chunk.byteLength
  }
  return body
}
