/**
 * How many credits or slots one instance asks for at a time, per credential (SPEC
 * §5.50): what it spent since its last lease, per millisecond, times the lease's target
 * lifetime, so a busy passcode leases once every `targetMs` or so whatever its rate,
 * and a quiet one leases one at a time and strands nothing. A first lease asks for 1
 * and each next one at most twice the last, so a rate ramps up in a few leases
 * instead of taking a large block on one request's word; but never fewer than the
 * requests waiting for the lease, which spend it as soon as it lands, so a burst of
 * concurrent first requests needs two leases, not one per doubling (a chain that
 * outlasts the requests' deadline).
 *
 * @example
 * ```ts
 * const sizer = new LeaseSizer()
 * const ask = sizer.next(Date.now(), 1_000, 1) // 1 the first time
 * ```
 */
export class LeaseSizer {
  #lastAsk = 0
  #leasedAt = 0
  #spent = 0

  /** Counts one request admitted. */
  spent(): void {
    this.#spent++
  }

  /**
   * The size of the next lease at `now`, for a lease lifetime of `targetMs`, with
   * `waiting` requests (this one among them) waiting for it; resets the count.
   */
  next(now: number, targetMs: number, waiting: number): number {
    const elapsed = Math.max(1, now - this.#leasedAt)
    const wanted = Math.ceil((this.#spent / elapsed) * targetMs)
    const ask = Math.max(waiting, this.#lastAsk === 0 ? 1 : Math.max(1, Math.min(wanted, this.#lastAsk * 2)))
    this.#lastAsk = ask
    this.#leasedAt = now
    this.#spent = 0
    return ask
  }
}
