import { unrefTimer } from '../../core/time'

/**
 * Whether the `LISTEN` of an instance is known to deliver: `proven`, or not, with a
 * message for an operator that says why and what to do.
 */
export type ProofState = { readonly proven: true } | { readonly proven: false; readonly message: string }

/**
 * How long, in proof intervals, a proof heard back vouches for what was heard: from
 * before its send, 1.8 intervals (9 s with the default 5 s, 1 s inside the 10 s bound of
 * SPEC §5.32), so the next proof, sent an interval later, has 0.8 of one to come back
 * before caches stop answering.
 */
export const FRESH_INTERVALS = 1.8

/** The delivery proof of one listening connection, as {@link deliveryProof} returns it. */
export interface DeliveryProof {
  /** `true` when `payload` is this proof's own (consumed: not an invalidation). */
  heard(payload: string): boolean
  /** The `LISTEN` became active (first, or again after a gap): prove it now. */
  listening(): void
  /** The last state reported; `undefined` until a proof failed or succeeded. */
  state(): ProofState | undefined
  /** Stops the timers. */
  stop(): void
}

/** What every proof payload starts with: other instances' proofs are recognised and ignored too. */
const PREFIX = '{"type":"proof","id":"'

const failedMessage = (waitedMs: number, everProven: boolean): string =>
  everProven
    ? `The listening connection stopped delivering: this instance's own notification did not come back within ${waitedMs} ms ` +
      '(a network cut, a restart?). Cached verifications, partner lists and limits are not trusted until it does again; it is being replaced.'
    : `The listening connection has not delivered this instance's own notification within ${waitedMs} ms since it started. ` +
      'Through a pooler in transaction mode (PgBouncer, a hosted "transaction" pooler) LISTEN cannot work: pass postgresStore the ' +
      'listenConnectionString option with a direct or session-mode connection (docs/operations.md). Until delivery is proven, ' +
      'nothing cached is trusted: every verification reads the database.'

/** How much later than due a wait's timer may fire before the loop counts as held (timers fire a millisecond or so late). */
const HELD_MS = 5

/** Runs `fn` once the event loop has read its sockets (setImmediate; a zero timer where a runtime has none). */
const afterIo = (fn: () => void): void => {
  if (typeof setImmediate === 'function') setImmediate(fn)
  else setTimeout(fn, 0)
}

/**
 * The end-to-end liveness proof of a listening connection (SPEC §5.32): every
 * `intervalMs`, and as soon as the `LISTEN` becomes active, it sends a notification of
 * its own through the pool (`send`) and expects it back on the listening connection
 * within half the interval. The first failure after a success (or since the start) is
 * reported as `{ proven: false }` and the listening connection is replaced (`renew`: a
 * connection cut without a FIN or RST never fails by itself); the first success after a
 * failure is reported as `{ proven: true }` once two proofs in a row came back (behind a
 * transaction pooler one may come back by accident now and then). A success that follows
 * no failure reports nothing: until the first proof the instance runs as it always did. So through a
 * pooler in transaction mode, where `LISTEN` never delivers, it says so once, at start.
 *
 * With the default 5 s, delivery lost at some instant is reported within 7.5 s, when the
 * process runs its timers on time. A bound that does not rest on its timers: each proof
 * heard back calls `fresh` with the instant ({@link FRESH_INTERVALS} after the proof was
 * sent, `performance.now()` read before the send) until which what was heard vouches
 * for the caches. Notifications come in commit order, so every change committed before
 * the proof's own was heard before it; a change after it is at most that old when the
 * instant passes. A starved process, whose proofs and verdicts run late, is past it
 * before any timer can say so, and its caches answer nothing until a proof comes back.
 */
export function deliveryProof(options: {
  readonly send: (payload: string) => Promise<unknown>
  readonly renew: () => void
  readonly intervalMs: number
  readonly report: (state: ProofState) => void
  /** Each proof heard back: until when (`performance.now()` ms) what is held may answer. */
  readonly fresh?: ((until: number) => void) | undefined
}): DeliveryProof {
  const { send, renew, intervalMs, report, fresh } = options
  const waitMs = Math.max(50, Math.floor(intervalMs / 2))
  const freshMs = intervalMs * FRESH_INTERVALS
  const id = Math.random().toString(36).slice(2, 12)
  let sequence = 0
  let pending: { readonly payload: string; readonly sentAt: number; readonly timer: ReturnType<typeof setTimeout> } | undefined
  let current: ProofState | undefined
  let everProven = false
  let stopped = false
  /** Proofs in a row since the last failure: trust comes back after two. */
  let successes = 0

  const fail = (): void => {
    if (pending !== undefined) clearTimeout(pending.timer)
    pending = undefined
    successes = 0
    if (stopped) return
    if (current === undefined || current.proven) {
      current = { proven: false, message: failedMessage(waitMs, everProven) }
      report(current)
    }
    renew()
  }

  // A wait's timer that fired late means a callback held the event loop past the wait
  // (a long task, GC, a loaded machine), and Node runs expired timers before it reads
  // sockets: the answer may have arrived in time and be waiting there. Then the verdict
  // is taken once the loop has read them (setImmediate runs after that), so such a
  // proof is not called lost.
  const expired = (payload: string, sentAt: number): void => {
    const verdict = (): void => {
      if (pending?.payload === payload) fail()
    }
    if (performance.now() - sentAt > waitMs + HELD_MS) afterIo(verdict)
    else verdict()
  }

  const prove = (): void => {
    if (stopped || pending !== undefined) return
    const payload = `${PREFIX}${id}.${++sequence}"}`
    const sentAt = performance.now()
    const timer = setTimeout(expired, waitMs, payload, sentAt)
    unrefTimer(timer)
    pending = { payload, sentAt, timer }
    // A send that fails (the database is down) leaves the verdict to the timer.
    new Promise((resolve) => resolve(send(payload))).catch(() => undefined)
  }

  const interval = setInterval(prove, intervalMs)
  unrefTimer(interval)

  return {
    heard(payload) {
      if (!payload.startsWith(PREFIX)) return false
      if (payload === pending?.payload) {
        clearTimeout(pending.timer)
        const until = pending.sentAt + freshMs
        pending = undefined
        everProven = true
        successes++
        if (current === undefined) current = { proven: true }
        else if (!current.proven && successes >= 2) {
          current = { proven: true }
          report(current)
        } else if (!current.proven) prove() // the second in a row, at once
        fresh?.(until)
      }
      return true
    },
    listening() {
      // A proof sent before this LISTEN was active cannot be expected back on it.
      if (pending !== undefined) clearTimeout(pending.timer)
      pending = undefined
      prove()
    },
    state: () => current,
    stop() {
      stopped = true
      clearInterval(interval)
      if (pending !== undefined) clearTimeout(pending.timer)
      pending = undefined
    },
  }
}
