import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { migrate } from '../../src/stores/postgres/index'
import {
  deliveryPassed,
  drained,
  judgeDelivery,
  readDeliverySnapshot,
  RECEIVER_MODES,
  startReceivers,
  startSoakSmtp,
  type DeliveryExpectations,
  type DeliveryJudgement,
  type Receivers,
  type SoakSmtp,
} from './fleet-delivery'
import { startTestPgBouncer, type TestPgBouncer } from '../../test/helpers/pgbouncer'
import { startTestPostgres, type TestPostgres } from '../../test/helpers/postgres'
import { startTcpProxy, type TcpProxy } from '../../test/helpers/tcp-proxy'

/*
 * The fleet soak (`npm run soak -- --fleet`, issue 32 item 9): three instances of a
 * host program (scripts/soak/fleet-instance.ts) as child processes on one throw-away
 * PostgreSQL cluster, mixed verification and management traffic, and faults drawn at
 * random. It counts what the fleet promises (SPEC §5.32, §5.33) never happens:
 * - a deleted (or disabled, or rotated-out) passcode accepted past the bound: a request
 *   sent more than 10 s after the change was answered;
 * - a live passcode refused with a 4xx;
 * - an instance unavailable (5xx, connection error, no answer within 5 s) outside a
 *   fault that touches it and the 10 s after that fault ended (heal or restart done);
 *   a fault near the end whose instance had not served again within the 10 s counts once.
 * Instances 1 and 2 reach PostgreSQL through PgBouncer in transaction mode, with the
 * direct `listenConnectionString`; instance 3 directly: both modes in one fleet. Each
 * connection of an instance goes through a TCP proxy of its own, which a silent cut
 * makes drop every byte both ways with both sockets kept open, and a hung balancer
 * makes do the same and also accept new connections that it never answers (issue 48).
 * The instances' `pg` Pools have the settings docs/operations.md gives, or pg's own
 * defaults (`pool: 'pg-defaults'`), which `postgresStore` refuses at start.
 * With `delivery` (the chaos mode for delivery, scripts/soak/fleet-delivery.ts), the
 * instances also deliver webhooks to loopback receivers that fail on purpose and send
 * expiry and leak emails to a real SMTP server; the runner also reports leaks, creates
 * passcodes that expire soon, kills an instance while it has attempts on the way
 * (`kill-delivering`) and stops the SMTP server for a while (`smtp-down`). After the
 * traffic it waits (at most {@link DRAIN_MS}) for everything due to be delivered and
 * mailed, and judges: no event lost, duplicates only with the same `webhook-id`, no
 * email lost or doubled, no audit record lost.
 * Credits (SPEC §5.50): one passcode with `credits` N is verified on every instance,
 * paced to spend N over about half the run, through the faults. After the traffic the
 * instances stop (each gives back what it holds) and the store's balance is read: the
 * admitted count must never pass N; with no fault touching an instance and every request
 * answered, admitted + balance must be exactly N; otherwise what went missing must stay
 * within the bound of docs/limits.md (one lease per instance killed, at most half of
 * what the store held, plus requests that got no answer, which may have spent one).
 */

const HERE = fileURLToPath(new URL('.', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The bound of every promise the soak checks, in ms (SPEC §5.32, issue 32 item 8). */
export const BOUND_MS = 10_000
/** A verification without an answer after this long counts as unavailable. */
const REQUEST_TIMEOUT_MS = 5_000
const ACCOUNTS = 12
const SEED_PER_ACCOUNT = 4

/** The kinds of fault the soak draws. */
export const FAULT_KINDS = ['silent-cut', 'hung-balancer', 'kill', 'postgres-restart', 'pgbouncer-restart'] as const
/** The kinds it also draws in the chaos mode for delivery: `kill -9` of an instance with webhook attempts on the way, the SMTP server stopped. */
export const DELIVERY_FAULT_KINDS = ['kill-delivering', 'smtp-down'] as const
export type FaultKind = (typeof FAULT_KINDS)[number] | (typeof DELIVERY_FAULT_KINDS)[number]
/** How long the run waits, after its traffic, for everything due to be delivered and mailed. */
export const DRAIN_MS = 120_000
/** Accounts whose passcodes are created to expire in 10 days (an expiry email each), apart from the management traffic. */
const EXPIRY_ACCOUNTS = 4

/**
 * The instances' `pg` Pool settings: `documented`, those of docs/operations.md (`max: 10`,
 * `connectionTimeoutMillis: 2000`, TCP keepalive); `pg-defaults`, the pool as pg's README
 * makes it (`new Pool({ connectionString, max: 4 })`: no connection timeout, no keepalive).
 */
export const POOL_SETTINGS = ['documented', 'pg-defaults'] as const
export type PoolSettings = (typeof POOL_SETTINGS)[number]

/** Thrown by {@link runFleetSoak} when an instance refused its settings at start (a `ConfigurationError`): no traffic ran. */
export class InstanceRefusedError extends Error {
  constructor(
    readonly instance: number,
    /** The instance's error: its class name and message. */
    readonly refusal: string,
  ) {
    super(`instance ${instance} refused to start: ${refusal}`)
    this.name = 'InstanceRefusedError'
  }
}

/** How long and how hard a fleet soak goes. */
export interface FleetSoakOptions {
  readonly durationMs: number
  /** Pause between the end of one fault and the start of the next, drawn in [min, max] ms. */
  readonly faultGapMs: readonly [number, number]
  /** How long a silent cut lasts, drawn in [min, max] ms. */
  readonly cutMs: readonly [number, number]
  /** How long a killed instance stays down before its restart, drawn in [min, max] ms. */
  readonly downMs: readonly [number, number]
  /**
   * The faults in this order, each one even past the duration (the run then lasts until a
   * bound after the last), then drawn at random; drawn at random from the start when absent.
   */
  readonly faults?: readonly FaultKind[]
  /** Verification loops per instance. */
  readonly verifiersPerInstance: number
  /** Pause between management operations. */
  readonly manageEveryMs: number
  /** Pause of each verification loop between two requests, ms. @default 10 */
  readonly verifyEveryMs?: number
  /** The instances' `pg` Pool settings. @default 'documented' */
  readonly pool?: PoolSettings
  /** Seeds the draws of the faults (kind, instance, length, pause) for a run to repeat; `Math.random` when absent. */
  readonly seed?: number
  /** The chaos mode for delivery: webhooks, expiry and leak emails, and their faults. @default false */
  readonly delivery?: boolean
  /** Credits of the metered passcode, spent across the fleet. @default 3 per second of the run, at least 30 */
  readonly credits?: number
}

/** The defaults of `npm run soak -- --fleet`: ten minutes. */
export function fleetSoakOptions(durationMs = 600_000): FleetSoakOptions {
  return { durationMs, faultGapMs: [5_000, 20_000], cutMs: [3_000, 15_000], downMs: [500, 5_000], verifiersPerInstance: 2, manageEveryMs: 300 }
}

/** One fault as it happened, times in ms since the start of traffic. */
export interface FaultRecord {
  readonly kind: FaultKind
  /** Instance number (1-based) for a cut or a kill; the instances it touches otherwise (none for the SMTP server). */
  readonly instances: readonly number[]
  /** What the fault found, for the report: the attempts on the way of an instance killed while delivering. */
  detail?: string
  readonly startedAt: number
  /** When the cut was healed or the restart completed. */
  endedAt: number
  /** Per instance touched: ms from `endedAt` to its first answer of a live passcode (undefined: none before the end). */
  readonly recoveredAfter: Record<number, number | undefined>
}

/** A request that broke a promise, for the report. */
export interface Violation {
  readonly instance: number
  /** ms since the start of traffic. */
  readonly at: number
  readonly what: string
}

export interface FleetSoakResult {
  readonly elapsedMs: number
  readonly faults: readonly FaultRecord[]
  readonly counts: {
    readonly deletedAcceptedPastBound: number
    readonly liveRefused: number
    readonly unavailableOutsideFault: number
  }
  readonly violations: readonly Violation[]
  readonly verifications: number
  /** Answers per instance: 200, 4xx, 5xx, no answer (connection error or timeout). */
  readonly answers: Record<number, { ok: number; refused: number; failed: number; noAnswer: number }>
  /** Revoked passcodes accepted within the bound, and the longest such delay after the change (ms). */
  readonly revokedAcceptedWithinBound: number
  readonly longestRevokedAcceptanceMs: number
  readonly revokedChecks: number
  readonly management: Record<string, { ok: number; failed: number }>
  /** `invalidations.*` events per instance (delivery lost and proven again). */
  readonly deliveryEvents: Record<number, Record<string, number>>
  readonly instanceModes: readonly string[]
  readonly pool: PoolSettings
  readonly seed: number | undefined
  /** How long a silent cut or a hung balancer lasted, drawn in [min, max] ms. */
  readonly cutMs: readonly [number, number]
  /** The metered passcode: credits set, admitted, refused 429, unanswered, the store's balance after the instances stopped. */
  readonly credits: CreditsCount
  /** The chaos mode for delivery's judgement, and how long the drain after the traffic took (ms). */
  readonly delivery?: DeliveryJudgement & { readonly drainMs: number; readonly drained: boolean }
  readonly passed: boolean
}

/** What the fleet spent of one passcode's credits (SPEC §5.50). */
export interface CreditsCount {
  readonly credits: number
  /** Answered 200, per instance and in all. */
  readonly admitted: number
  readonly admittedBy: Record<number, number>
  /** Answered 429 `Credits exhausted`. */
  readonly exhausted: number
  /** No answer, a 5xx or another answer: may have spent a credit or not. */
  readonly unanswered: number
  /** The store's balance once every instance had stopped and given back what it held. */
  readonly balanceAtEnd: number | undefined
  /** credits − admitted − balance: leases lost with a killed instance or an unanswered lease, and requests admitted unanswered. */
  readonly missing: number | undefined
  /** Instances killed (`kill -9`) while credits were being spent. */
  readonly kills: number
  /** The bound `missing` must stay within: 0 with no fault while spending and every request answered. */
  readonly bound: number
  /** Faults of any kind while credits were being spent. */
  readonly faultsWhileSpending: number
  readonly overSpent: boolean
}

interface Passcode {
  readonly accountId: string
  readonly id: string
  value: string
  /** ms (run clock) from which the value is live: the change that made it answered. */
  liveSince: number
  /** When an operation that may end it was sent (then no longer checked as live). */
  retiredAt?: number
  disabled?: boolean
}

interface Revoked {
  readonly accountId: string
  readonly value: string
  /** When the change was answered. */
  readonly at: number
}

interface Instance {
  readonly number: number
  readonly mode: string
  readonly proxies: TcpProxy[]
  readonly env: Record<string, string>
  child?: ChildProcess
  port?: number
  /** Deliberately down (killed, not yet restarted). */
  down: boolean
  /** Webhook attempts on the way, as the instance last told. */
  sending: number
  stderr: string
  crashed?: string
}

/** A window [from, to] in which an instance may be unavailable. */
interface Excuse {
  readonly instance: number
  readonly from: number
  to: number
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const draw = ([min, max]: readonly [number, number], random = Math.random): number => min + random() * (max - min)
const pick = <T>(items: readonly T[], random = Math.random): T => items[Math.floor(random() * items.length)]!

/** Numbers in [0, 1) drawn from `seed` (mulberry32): the same seed draws the same faults. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** Runs the fleet soak; `log` gets progress lines (faults as they happen). */
export async function runFleetSoak(options: FleetSoakOptions, log: (line: string) => void = () => {}): Promise<FleetSoakResult> {
  const postgres: TestPostgres = await startTestPostgres()
  const cleanup: (() => Promise<void>)[] = [() => postgres.stop()]
  try {
    if (postgres.stopServer === undefined || postgres.startServer === undefined) {
      throw new Error('the fleet soak needs a throw-away cluster (PostgreSQL binaries), not DATABASE_URL: it restarts the server')
    }
    const bouncer: TestPgBouncer = await startTestPgBouncer(postgres.connectionString)
    cleanup.push(() => bouncer.stop())
    const admin = new pg.Pool({ connectionString: postgres.connectionString, max: 1 })
    admin.on('error', () => {})
    await migrate(admin)
    await admin.end()
    const proxyTo = async (connectionString: string) => {
      const url = new URL(connectionString)
      const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) })
      cleanup.push(() => proxy.close())
      return proxy
    }
    const pool = options.pool ?? 'documented'
    let receivers: Receivers | undefined
    let smtp: SoakSmtp | undefined
    if (options.delivery === true) {
      const started = await startReceivers()
      receivers = started
      cleanup.push(() => started.close())
      const mail = await startSoakSmtp()
      smtp = mail
      cleanup.push(() => mail.close())
    }
    const secrets = {
      SOAK_PEPPER: randomBytes(32).toString('base64url'),
      SOAK_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64url')}`,
      SOAK_POOL: pool,
      ...(smtp !== undefined && { SOAK_SMTP_PORT: String(smtp.port) }),
    }
    const instances: Instance[] = []
    for (let number = 1; number <= 3; number++) {
      if (number < 3) {
        const toBouncer = await proxyTo(bouncer.connectionString)
        const listen = await proxyTo(postgres.connectionString)
        instances.push({
          number,
          mode: 'PgBouncer (transaction mode) + direct listenConnectionString',
          proxies: [toBouncer, listen],
          env: { ...secrets, SOAK_DATABASE_URL: toBouncer.via(bouncer.connectionString), SOAK_LISTEN_URL: listen.via(postgres.connectionString) },
          down: false,
          sending: 0,
          stderr: '',
        })
      } else {
        const direct = await proxyTo(postgres.connectionString)
        instances.push({
          number,
          mode: 'direct',
          proxies: [direct],
          env: { ...secrets, SOAK_DATABASE_URL: direct.via(postgres.connectionString) },
          down: false,
          sending: 0,
          stderr: '',
        })
      }
    }
    const deliveryEvents: Record<number, Record<string, number>> = {}
    // The run's clock; it starts again with the traffic.
    let origin = performance.now()
    const now = (): number => performance.now() - origin
    const start = async (instance: Instance): Promise<void> => {
      const child = fork(join(HERE, 'fleet-instance.ts'), [], {
        cwd: ROOT,
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, ...instance.env },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      })
      instance.child = child
      child.stderr!.on('data', (chunk: Buffer) => {
        instance.stderr = (instance.stderr + chunk.toString('utf8')).slice(-4_000)
      })
      child.on('message', (message: { type: string; event?: string; sending?: number }) => {
        if (message.type === 'sending' && instance.child === child) instance.sending = message.sending!
        if (message.type !== 'event') return
        const events = (deliveryEvents[instance.number] ??= {})
        events[message.event!] = (events[message.event!] ?? 0) + 1
      })
      child.once('exit', (code, signal) => {
        if (instance.child === child && !instance.down && instance.crashed === undefined) {
          instance.crashed = `exited (code ${code}, signal ${signal}) at ${Math.round(now())} ms: ${instance.stderr.slice(-1_000)}`
          log(`instance ${instance.number} ${instance.crashed}`)
        }
      })
      instance.port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`instance ${instance.number} did not listen within 60 s: ${instance.stderr}`)), 60_000)
        child.on('message', (message: { type: string; port?: number; refusal?: string }) => {
          if (message.type === 'refused') {
            clearTimeout(timer)
            instance.down = true
            reject(new InstanceRefusedError(instance.number, message.refusal!))
          }
          if (message.type !== 'listening') return
          clearTimeout(timer)
          resolve(message.port!)
        })
        child.once('exit', (code) => {
          clearTimeout(timer)
          // A refusal, reported over IPC before the exit, has rejected already.
          reject(new Error(`instance ${instance.number} exited with ${code} before listening: ${instance.stderr}`))
        })
      })
    }
    const stopAll = async (): Promise<void> => {
      await Promise.all(
        instances.map(async (instance) => {
          const child = instance.child
          if (child?.exitCode !== null || child.signalCode !== null) return
          instance.down = true
          const exited = once(child, 'exit')
          child.kill('SIGTERM')
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
          await exited
          clearTimeout(timer)
        }),
      )
    }
    cleanup.push(stopAll)
    await Promise.all(instances.map(start))

    origin = performance.now()
    // The end of traffic: later when a fault of `options.faults` ends less than a bound before it.
    let until = options.durationMs

    const passcodes: Passcode[] = []
    const revoked: Revoked[] = []
    const management: Record<string, { ok: number; failed: number }> = {}
    const excuses: Excuse[] = []
    const faults: FaultRecord[] = []
    const violations: Violation[] = []
    const counts = { deletedAcceptedPastBound: 0, liveRefused: 0, unavailableOutsideFault: 0 }
    const answers: FleetSoakResult['answers'] = {}
    for (const instance of instances) answers[instance.number] = { ok: 0, refused: 0, failed: 0, noAnswer: 0 }
    let verifications = 0
    let revokedChecks = 0
    let revokedAcceptedWithinBound = 0
    let longestRevokedAcceptanceMs = 0
    const violation = (entry: Violation): void => {
      if (violations.length < 200) violations.push(entry)
      log(`VIOLATION instance ${entry.instance} at ${(entry.at / 1_000).toFixed(1)} s: ${entry.what}`)
    }

    const call = async (instance: Instance, path: string, init: RequestInit): Promise<{ status: number; body: unknown } | undefined> => {
      if (instance.port === undefined) return undefined
      try {
        const response = await fetch(`http://127.0.0.1:${instance.port}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
        const text = await response.text()
        return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) }
      } catch {
        return undefined
      }
    }

    const manage = async (body: Record<string, string>): Promise<Record<string, string> | undefined> => {
      const up = instances.filter((instance) => !instance.down)
      const answer = await call(pick(up.length > 0 ? up : instances), '/manage', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const tally = (management[body.op!] ??= { ok: 0, failed: 0 })
      if (answer?.status === 200) {
        tally.ok++
        return answer.body as Record<string, string>
      }
      tally.failed++
      return undefined
    }

    // What the chaos mode for delivery expects to arrive: each change answered 200.
    const expectations = { changes: [], expiring: [], leaks: [] } as {
      changes: DeliveryExpectations['changes'][number][]
      expiring: DeliveryExpectations['expiring'][number][]
      leaks: DeliveryExpectations['leaks'][number][]
    }
    const changed = (accountId: string, passcodeId: string, what: string): void => {
      if (receivers !== undefined) expectations.changes.push({ accountId, passcodeId, type: what, action: what })
    }

    const accounts = Array.from({ length: ACCOUNTS }, (_, n) => `acc_soak_${n + 1}`)
    const expiryAccounts = receivers === undefined ? [] : Array.from({ length: EXPIRY_ACCOUNTS }, (_, n) => `acc_soak_expiry_${n + 1}`)
    const expiringIn = new Map(expiryAccounts.map((accountId) => [accountId, 0]))
    // Delivery: one endpoint per account (every event type), on the receivers' kinds in turn, before any change.
    if (receivers !== undefined) {
      for (const [index, accountId] of [...accounts, ...expiryAccounts].entries()) {
        const url = receivers.url(RECEIVER_MODES[index % RECEIVER_MODES.length]!, accountId)
        let created: Record<string, string> | undefined
        for (let tries = 0; created === undefined && tries < 20; tries++) created = await manage({ op: 'webhook', accountId, url })
        if (created === undefined) throw new Error(`could not create the webhook endpoint of ${accountId}`)
        receivers.secrets.set(accountId, created.secret!)
      }
    }

    // Seed: a few live passcodes per account, created through the instances.
    let names = 0
    const create = async (accountId: string): Promise<void> => {
      const created = await manage({ op: 'create', accountId, name: `Soak ${++names}` })
      if (created === undefined) return
      passcodes.push({ accountId, id: created.id!, value: created.value!, liveSince: now() })
      changed(accountId, created.id!, 'passcode.created')
    }
    /** A passcode that expires in 10 days, in an account of its own: one expiry email, whatever the faults. */
    const createExpiring = async (): Promise<void> => {
      const accountId = pick(expiryAccounts)
      if (expiringIn.get(accountId)! >= 90) return
      const name = `Soak ${++names} expiring`
      const created = await manage({ op: 'create', accountId, name, expiry: '10' })
      if (created === undefined) return
      expiringIn.set(accountId, expiringIn.get(accountId)! + 1)
      changed(accountId, created.id!, 'passcode.created')
      expectations.expiring.push({ accountId, passcodeId: created.id!, name })
    }
    for (const accountId of accounts) await Promise.all(Array.from({ length: SEED_PER_ACCOUNT }, () => create(accountId)))

    // The metered passcode: its own account, never in the live set (its 429s are its point).
    const credits = options.credits ?? Math.max(30, Math.round((options.durationMs / 1_000) * 3))
    let metered: Record<string, string> | undefined
    for (let tries = 0; metered === undefined && tries < 20; tries++) {
      metered = await manage({ op: 'create', accountId: 'acc_soak_credits', name: 'Soak credits', credits: String(credits) })
    }
    if (metered === undefined) throw new Error('could not create the metered passcode')
    const meter = { id: metered.id!, value: metered.value! }
    const spent = { admittedBy: {} as Record<number, number>, exhausted: 0, unanswered: 0, lastAdmittedAt: 0 }

    const live = (accountId?: string): Passcode[] =>
      passcodes.filter(
        (passcode) => passcode.retiredAt === undefined && !passcode.disabled && (accountId === undefined || passcode.accountId === accountId),
      )
    const retire = (passcode: Passcode, value: string): void => {
      revoked.push({ accountId: passcode.accountId, value, at: now() })
    }

    /** Mixed management: creates, deletes, rotations (no overlap) and disables, a live set of 3 to 10 per account. */
    const managementLoop = async (): Promise<void> => {
      while (now() < until) {
        const accountId = pick(accounts)
        const own = live(accountId)
        const changes = receivers === undefined ? ['delete', 'rotate', 'disable'] : ['delete', 'rotate', 'disable', 'leak']
        const op =
          receivers !== undefined && Math.random() < 0.05
            ? 'create-expiring'
            : own.length < 3
              ? 'create'
              : own.length > 10
                ? pick(changes)
                : pick(['create', 'create', ...changes])
        if (op === 'create-expiring') {
          await createExpiring()
        } else if (op === 'create') {
          await create(accountId)
        } else {
          const passcode = pick(own)
          const old = passcode.value
          passcode.retiredAt = now()
          const done = await manage(op === 'leak' ? { op, accountId, value: old } : { op, accountId, passcodeId: passcode.id })
          if (done !== undefined) {
            // The old value is revoked from the moment the change was answered.
            retire(passcode, old)
            if (op === 'rotate') passcodes.push({ accountId, id: passcode.id, value: done.value!, liveSince: now() })
            if (op === 'disable' || op === 'leak') passcode.disabled = true
            if (op === 'leak') expectations.leaks.push({ accountId, passcodeId: passcode.id })
            else changed(accountId, passcode.id, `passcode.${op}d`)
          }
          // Failed (a fault): the change may or may not have happened; neither value is checked again.
        }
        await sleep(options.manageEveryMs)
      }
    }

    /** Verifications of the metered passcode on one instance, paced to spend its credits over about 40 % of the run (longer: each request takes its time). */
    const creditsLoop = async (instance: Instance): Promise<void> => {
      const everyMs = (0.4 * options.durationMs * instances.length) / credits
      while (now() < until) {
        if (instance.port === undefined || instance.down) {
          await sleep(50)
          continue
        }
        const answer = await call(instance, '/verify', {
          headers: { 'x-service-account-id': 'acc_soak_credits', 'x-service-passcode': meter.value },
        })
        if (answer?.status === 200) {
          spent.admittedBy[instance.number] = (spent.admittedBy[instance.number] ?? 0) + 1
          spent.lastAdmittedAt = now()
        } else if (answer?.status === 429 && (answer.body as { error?: string } | undefined)?.error === 'Credits exhausted') spent.exhausted++
        else spent.unanswered++
        await sleep(everyMs)
      }
    }

    const excused = (instance: number, from: number, to: number): boolean =>
      excuses.some((excuse) => excuse.instance === instance && from <= excuse.to + BOUND_MS && to >= excuse.from)

    /** Verifications on one instance: mostly live passcodes, a quarter revoked ones (most recent first). */
    const verifyLoop = async (instance: Instance): Promise<void> => {
      while (now() < until) {
        const alive = live()
        const checkRevoked = revoked.length > 0 && (alive.length === 0 || Math.random() < 0.25)
        const target = checkRevoked
          ? revoked[Math.max(0, revoked.length - 1 - Math.floor(Math.random() ** 2 * Math.min(revoked.length, 200)))]!
          : pick(alive)
        const passcode = checkRevoked ? undefined : (target as Passcode)
        if (instance.port === undefined || instance.down || (!checkRevoked && alive.length === 0)) {
          await sleep(50)
          continue
        }
        const sent = now()
        const answer = await call(instance, '/verify', {
          headers: { 'x-service-account-id': target.accountId, 'x-service-passcode': target.value },
        })
        const answered = now()
        verifications++
        const tally = answers[instance.number]!
        if (answer === undefined) tally.noAnswer++
        else if (answer.status === 200) tally.ok++
        else if (answer.status < 500) tally.refused++
        else tally.failed++
        if (answer === undefined || answer.status >= 500) {
          if (!excused(instance.number, sent, answered)) {
            counts.unavailableOutsideFault++
            violation({
              instance: instance.number,
              at: sent,
              what: `unavailable (${answer === undefined ? 'no answer' : answer.status}) outside a fault and its ${BOUND_MS / 1_000} s`,
            })
          }
        } else if (passcode !== undefined) {
          const stillLive = passcode.retiredAt === undefined && sent >= passcode.liveSince
          if (answer.status !== 200 && stillLive) {
            counts.liveRefused++
            violation({
              instance: instance.number,
              at: sent,
              what: `live passcode (${passcode.accountId}/${passcode.id}) refused with ${answer.status}`,
            })
          }
        } else {
          const change = target as Revoked
          revokedChecks++
          if (answer.status === 200) {
            const late = sent - change.at
            if (late > BOUND_MS) {
              counts.deletedAcceptedPastBound++
              violation({
                instance: instance.number,
                at: sent,
                what: `revoked passcode of ${change.accountId} accepted ${Math.round(late)} ms after the change`,
              })
            } else if (late > 0) {
              revokedAcceptedWithinBound++
              longestRevokedAcceptanceMs = Math.max(longestRevokedAcceptanceMs, late)
            }
          }
        }
        await sleep(options.verifyEveryMs ?? 10)
      }
    }

    const touched = (kind: FaultKind, target: Instance): Instance[] =>
      kind === 'postgres-restart'
        ? instances
        : kind === 'pgbouncer-restart'
          ? instances.filter((instance) => instance.env.SOAK_LISTEN_URL !== undefined)
          : kind === 'smtp-down'
            ? []
            : [target]

    /** An instance with webhook attempts on the way, waited for at most 10 s (the hanging receivers hold some for 15 s). */
    const delivering = async (): Promise<Instance | undefined> => {
      const until = Date.now() + 10_000
      while (Date.now() < until) {
        const busy = instances.filter((instance) => instance.crashed === undefined && !instance.down && instance.sending > 0)
        if (busy.length > 0) return pick(busy)
        await sleep(20)
      }
      return undefined
    }

    /** One fault: excuses its instances from its start, runs it, records when it ended. */
    // The faults' own draws, seeded when asked: the verification and management loops draw from Math.random.
    const chance = options.seed === undefined ? Math.random : seeded(options.seed)
    const fault = async (kind: FaultKind): Promise<void> => {
      const drawn = pick(
        instances.filter((instance) => instance.crashed === undefined),
        chance,
      )
      const busy = kind === 'kill-delivering' ? await delivering() : undefined
      const target = busy ?? drawn
      const affected = touched(kind, target)
      const startedAt = now()
      const windows = affected.map((instance) => ({ instance: instance.number, from: startedAt, to: Number.POSITIVE_INFINITY }))
      excuses.push(...windows)
      const record: FaultRecord = { kind, instances: affected.map((instance) => instance.number), startedAt, endedAt: startedAt, recoveredAfter: {} }
      if (kind === 'kill-delivering') record.detail = busy === undefined ? 'no attempt on the way within 10 s' : `${busy.sending} attempts on the way`
      faults.push(record)
      log(
        `${(startedAt / 1_000).toFixed(1)} s: ${kind}${affected.length === 1 ? ` of instance ${target.number}` : ''}${record.detail === undefined ? '' : ` (${record.detail})`}`,
      )
      if (kind === 'silent-cut') {
        for (const proxy of target.proxies) proxy.silence(true)
        await sleep(draw(options.cutMs, chance))
        for (const proxy of target.proxies) proxy.silence(false)
      } else if (kind === 'hung-balancer') {
        for (const proxy of target.proxies) proxy.hang(true)
        await sleep(draw(options.cutMs, chance))
        for (const proxy of target.proxies) proxy.hang(false)
      } else if (kind === 'smtp-down') {
        await smtp!.stop()
        await sleep(draw(options.cutMs, chance))
        await smtp!.start()
      } else if (kind === 'kill' || kind === 'kill-delivering') {
        target.down = true
        target.sending = 0
        const child = target.child!
        const exited = once(child, 'exit')
        child.kill('SIGKILL')
        await exited
        target.port = undefined
        await sleep(draw(options.downMs, chance))
        await start(target)
        target.down = false
      } else if (kind === 'postgres-restart') {
        await postgres.stopServer!('fast')
        await postgres.startServer!()
      } else {
        await bouncer.stopServer()
        await bouncer.startServer()
      }
      record.endedAt = now()
      for (const window of windows) window.to = record.endedAt
      log(`${(record.endedAt / 1_000).toFixed(1)} s: ${kind} over after ${((record.endedAt - startedAt) / 1_000).toFixed(1)} s`)
      // Recovery: the time to the first answer of a live passcode on each instance touched.
      void Promise.all(
        affected.map(async (instance) => {
          while (now() < until + BOUND_MS) {
            const alive = live()
            if (alive.length === 0) {
              await sleep(100)
              continue
            }
            const passcode = pick(alive)
            const answer = await call(instance, '/verify', {
              headers: { 'x-service-account-id': passcode.accountId, 'x-service-passcode': passcode.value },
            })
            if (answer?.status === 200) {
              record.recoveredAfter[instance.number] = now() - record.endedAt
              return
            }
            await sleep(100)
          }
        }),
      )
    }

    const kinds: readonly FaultKind[] = receivers === undefined ? FAULT_KINDS : [...FAULT_KINDS, ...DELIVERY_FAULT_KINDS]
    const faultLoop = async (): Promise<void> => {
      const sequence = [...(options.faults ?? [])]
      // A pause never holds the run open past its end.
      const pause = () => sleep(Math.min(draw(options.faultGapMs, chance), Math.max(0, until - now())))
      await pause()
      // No drawn fault starts in the last bound of the run: its recovery is part of the run.
      // The faults asked for all run. Traffic goes on while a fault runs, past the duration
      // too, and the run lasts until a bound after the fault ended: until then, the
      // traffic stopped when the duration passed, and a long fault that ended later had
      // no request judge its instance's recovery (only the recovery probe).
      while (sequence.length > 0 || now() < until - BOUND_MS) {
        const asked = sequence.shift()
        const end = until
        until = Number.POSITIVE_INFINITY
        await fault(asked ?? pick(kinds, chance))
        until = Math.max(end, now() + BOUND_MS)
        await pause()
      }
    }

    log(`traffic on ${instances.length} instances for ${(until / 1_000).toFixed(0)} s`)
    await Promise.all([
      managementLoop(),
      faultLoop(),
      ...instances.flatMap((instance) => Array.from({ length: options.verifiersPerInstance }, () => verifyLoop(instance))),
      ...instances.map(creditsLoop),
    ])
    const elapsedMs = now()
    // Recoveries still being timed finish within a bound past the end.
    const pending = Date.now() + BOUND_MS
    while (faults.some((record) => record.instances.some((n) => !(n in record.recoveredAfter))) && Date.now() < pending) await sleep(100)
    // An instance that had not served again within the bound when the run ended: no request past its window could count it.
    for (const record of faults) {
      if (record.endedAt + BOUND_MS < elapsedMs) continue
      for (const n of record.instances) {
        const after = record.recoveredAfter[n]
        if (after !== undefined && after <= BOUND_MS) continue
        counts.unavailableOutsideFault++
        violation({
          instance: n,
          at: record.endedAt,
          what: `not serving ${after === undefined ? 'at all' : `until ${Math.round(after)} ms`} after the ${record.kind} that ended at ${(record.endedAt / 1_000).toFixed(1)} s (bound ${BOUND_MS / 1_000} s)`,
        })
      }
    }
    for (const instance of instances) {
      if (instance.crashed !== undefined) violation({ instance: instance.number, at: elapsedMs, what: `crashed: ${instance.crashed}` })
    }
    // Delivery: wait for what is due to be delivered and mailed (read from the database), then judge.
    let delivery: FleetSoakResult['delivery']
    if (receivers !== undefined && smtp !== undefined) {
      const reader = new pg.Pool({ connectionString: postgres.connectionString, max: 1 })
      reader.on('error', () => {})
      try {
        const drainStart = Date.now()
        let snapshot = await readDeliverySnapshot(reader)
        let done = drained(snapshot, expectations, smtp.mails)
        while (!done && Date.now() - drainStart < DRAIN_MS) {
          await sleep(1_000)
          snapshot = await readDeliverySnapshot(reader)
          done = drained(snapshot, expectations, smtp.mails)
        }
        const drainMs = Date.now() - drainStart
        log(`delivery drained ${done ? '' : 'NOT '}after ${(drainMs / 1_000).toFixed(1)} s`)
        const judgement = judgeDelivery({
          expectations,
          snapshot,
          received: receivers.received,
          invalidSignatures: receivers.invalidSignatures,
          mails: smtp.mails,
        })
        for (const problem of judgement.problems) violation({ instance: 0, at: elapsedMs, what: `delivery: ${problem}` })
        delivery = { ...judgement, drainMs, drained: done }
      } finally {
        await reader.end()
      }
    }
    // Credits: every instance stops (and gives back what it holds), then the store's balance.
    await stopAll()
    let balanceAtEnd: number | undefined
    const reader = new pg.Pool({ connectionString: postgres.connectionString, max: 1 })
    reader.on('error', () => {})
    try {
      const { rows } = await reader.query<{ credit_balance: string }>(
        `SELECT credit_balance FROM passcode_auth.limit_counters WHERE account_id = 'acc_soak_credits' AND kind = 'account' AND key = $1`,
        [meter.id],
      )
      balanceAtEnd = rows[0] === undefined ? credits : Number(rows[0].credit_balance)
    } catch (error) {
      log(`credits: the balance could not be read: ${String(error)}`)
    } finally {
      await reader.end()
    }
    const admitted = Object.values(spent.admittedBy).reduce((sum, n) => sum + n, 0)
    // While credits were spent: up to the last admission (or the whole run if some are left).
    const spendingUntil = balanceAtEnd !== undefined && balanceAtEnd > 0 ? elapsedMs : spent.lastAdmittedAt
    const whileSpending = faults.filter((record) => record.startedAt <= spendingUntil)
    const kills = whileSpending.filter((record) => record.kind === 'kill' || record.kind === 'kill-delivering').length
    const missing = balanceAtEnd === undefined ? undefined : credits - admitted - balanceAtEnd
    // docs/limits.md: a lease lost is at most half of what the store held (ceil), one per instance
    // killed or lease answer lost in a fault; an unanswered request may have spent one.
    const bound = whileSpending.length === 0 && spent.unanswered === 0 ? 0 : whileSpending.length * Math.ceil(credits / 2) + spent.unanswered
    const creditsCount: CreditsCount = {
      credits,
      admitted,
      admittedBy: spent.admittedBy,
      exhausted: spent.exhausted,
      unanswered: spent.unanswered,
      balanceAtEnd,
      missing,
      kills,
      bound,
      faultsWhileSpending: whileSpending.length,
      overSpent: admitted > credits,
    }
    if (creditsCount.overSpent) violation({ instance: 0, at: elapsedMs, what: `credits: ${admitted} admitted of ${credits}` })
    if (missing === undefined) violation({ instance: 0, at: elapsedMs, what: 'credits: the balance at the end could not be read' })
    else if (missing < 0 || missing > bound) {
      violation({ instance: 0, at: elapsedMs, what: `credits: ${missing} missing of ${credits} (bound ${bound})` })
    }
    const creditsPassed = !creditsCount.overSpent && missing !== undefined && missing >= 0 && missing <= bound
    return {
      elapsedMs,
      faults,
      credits: creditsCount,
      counts,
      violations,
      verifications,
      answers,
      revokedAcceptedWithinBound,
      longestRevokedAcceptanceMs,
      revokedChecks,
      management,
      deliveryEvents,
      instanceModes: instances.map((instance) => instance.mode),
      pool,
      seed: options.seed,
      cutMs: options.cutMs,
      ...(delivery !== undefined && { delivery }),
      passed:
        creditsPassed &&
        (delivery === undefined || deliveryPassed(delivery.counts)) &&
        counts.deletedAcceptedPastBound === 0 &&
        counts.liveRefused === 0 &&
        counts.unavailableOutsideFault === 0 &&
        instances.every((instance) => instance.crashed === undefined),
    }
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined)
  }
}
