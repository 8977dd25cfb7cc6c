const TABLE = /* @__PURE__ */ (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/**
 * CRC-32 (IEEE 802.3, the one of zip and PNG) of an ASCII string, as an unsigned
 * 32-bit integer. Characters above U+00FF are folded to their low byte, which is fine
 * for the base62 text it is used on.
 */
export function crc32(text: string): number {
  let crc = 0xffffffff
  for (let i = 0; i < text.length; i++) {
    crc = TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8)
  }
  return (crc ^ 0xffffffff) >>> 0
}
