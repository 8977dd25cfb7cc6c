/**
 * The most bytes of a response body the client reads. Connect answers are under 300
 * bytes; anything past this is not a /v1/connect answer and is not buffered.
 */
export const MAX_BODY_BYTES = 64 * 1024

/** The start of a body, up to a byte limit. */
export interface BoundedBody {
  readonly bytes: Uint8Array
  /** The body went on past the limit; the rest was never read. */
  readonly truncated: boolean
}

/**
 * Reads a body through its stream reader, stopping and cancelling the stream as soon
 * as `limit` bytes are exceeded, so that a huge or endless body never gets buffered.
 *
 * @param guard - wraps every read so that an abort or the deadline interrupts it at once
 */
export async function readBoundedBody(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  guard: <T>(promise: Promise<T>) => Promise<T>,
): Promise<BoundedBody> {
  if (body === null) return { bytes: new Uint8Array(0), truncated: false }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let length = 0
  let truncated = false
  try {
    for (;;) {
      const { done, value } = await guard(reader.read())
      if (done) break
      if (length + value.byteLength > limit) {
        chunks.push(value.subarray(0, limit - length))
        length = limit
        truncated = true
        break
      }
      chunks.push(value)
      length += value.byteLength
    }
  } finally {
    // Stops the transfer when truncated or interrupted; a no-op on a finished stream.
    reader.cancel().catch(() => {})
  }
  return { bytes: concat(chunks, length), truncated }
}

/** Drops a body the client will not read, freeing the connection. */
export function discardBody(body: ReadableStream<Uint8Array> | null): void {
  if (body !== null && !body.locked) body.cancel().catch(() => {})
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}
