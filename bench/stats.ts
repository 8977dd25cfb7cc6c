/** Small statistics helpers shared by the benchmark sections. */

/** The median of some numbers (mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The p-th percentile (nearest rank) of values sorted in ascending order. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** Nanosecond samples → p50 and p99 in microseconds. */
export function latencyOf(samplesNs: Float64Array): { p50Us: number; p99Us: number } {
  const sorted = Float64Array.from(samplesNs).sort()
  return { p50Us: percentile(sorted, 50) / 1000, p99Us: percentile(sorted, 99) / 1000 }
}

/** Formats a rate: 58 123 → "58.1k", 1 234 567 → "1.23M". */
export function formatRate(value: number): string {
  if (!Number.isFinite(value)) return 'n/a'
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`
  if (value >= 1e3) return `${(value / 1e3).toFixed(2)}k`
  return value.toFixed(0)
}

/** Formats a duration given in microseconds with a unit that keeps 3 significant digits. */
export function formatMicros(us: number): string {
  if (!Number.isFinite(us)) return 'n/a'
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`
  if (us >= 10) return `${us.toFixed(0)} µs`
  return `${us.toFixed(2)} µs`
}

/** A ratio as "0.93×". */
export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(value >= 10 ? 1 : 2)}×` : 'n/a'
}
