import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { generatePasscode } from '../../src/index'

/** The credentials the seed created, by what a request with them must get. */
export interface SoakCredentials {
  readonly partner: string
  readonly accountId: string
  readonly otherAccountId: string
  /** Active account passcodes of `accountId`, with the principal's fields. */
  readonly valid: readonly { readonly value: string; readonly passcodeId: string; readonly name: string }[]
  /** Active user passcodes of `accountId` (which accepts both kinds). */
  readonly users: readonly { readonly value: string; readonly userId: string }[]
  /** Account passcodes of `accountId` whose expiry has passed. */
  readonly expired: readonly string[]
  /** Active account passcodes of `otherAccountId`. */
  readonly otherAccount: readonly string[]
}

/** One request of the mix and the one answer it must get. */
interface Planned {
  readonly path: string
  readonly headers: Record<string, string>
  readonly status: number
  /** Exact body text, or a value the parsed JSON body must deep-equal. */
  readonly body: string | object
}

const SUCCESS = '{"status":"success","message":"Authorised Successfully."}'
const INVALID = '{"status":"fail","error":"Invalid Credentials","code":400}'
const EXPIRED = '{"status":"fail","error":"Passcode expired","code":401}'
const MISSING_PARTNER = '{"status":"fail","error":"Missing partner","code":400}'

type Kind =
  | 'valid account passcode'
  | 'valid account passcode, protected route'
  | 'valid user passcode, protected route'
  | 'expired passcode'
  | 'unknown passcode'
  | 'malformed passcode'
  | "another account's passcode"
  | 'missing partner'
  | 'partner not whitelisted'
  | 'no credentials'

/** The mix: how many of every 100 requests are of each kind. */
export const MIX: Readonly<Record<Kind, number>> = {
  'valid account passcode': 30,
  'valid account passcode, protected route': 5,
  'valid user passcode, protected route': 10,
  'expired passcode': 15,
  'unknown passcode': 15,
  'malformed passcode': 5,
  "another account's passcode": 5,
  'missing partner': 5,
  'partner not whitelisted': 5,
  'no credentials': 5,
}
// Each kind spread evenly over the 100 slots, so that even a short run gets every kind.
const SCHEDULE: readonly Kind[] = Object.entries(MIX)
  .flatMap(([kind, weight]) => Array.from({ length: weight }, (_, k) => ({ kind: kind as Kind, at: ((k + 0.5) * 100) / weight })))
  .sort((a, b) => a.at - b.at)
  .map((slot) => slot.kind)

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!

/** Flips the last character: the checksum no longer holds. */
const corrupt = (value: string): string => `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`

/** The `i`-th request of the mix, with its expected answer. */
export function plan(credentials: SoakCredentials, i: number): { kind: Kind } & Planned {
  const kind = SCHEDULE[i % SCHEDULE.length]!
  const n = Math.floor(i / SCHEDULE.length)
  const { accountId, partner } = credentials
  const auth = (passcode: string, account = accountId) => ({ 'x-service-account-id': account, 'x-service-passcode': passcode })
  const connect = `/v1/connect?partner=${encodeURIComponent(partner)}`
  switch (kind) {
    case 'valid account passcode':
      return { kind, path: connect, headers: auth(pick(credentials.valid, n).value), status: 200, body: SUCCESS }
    case 'valid account passcode, protected route': {
      const passcode = pick(credentials.valid, n)
      const calledBy = { accountId, kind: 'account', passcodeId: passcode.passcodeId, passcodeName: passcode.name }
      return { kind, path: '/1/events.json', headers: auth(passcode.value), status: 200, body: { events: [], calledBy } }
    }
    case 'valid user passcode, protected route': {
      const user = pick(credentials.users, n)
      const calledBy = { accountId, kind: 'user', userId: user.userId }
      return { kind, path: '/1/events.json', headers: auth(user.value), status: 200, body: { events: [], calledBy } }
    }
    case 'expired passcode':
      return { kind, path: connect, headers: auth(pick(credentials.expired, n)), status: 401, body: EXPIRED }
    case 'unknown passcode':
      // Well-formed and never issued: reaches storage every time, never cached.
      return { kind, path: connect, headers: auth(generatePasscode()), status: 400, body: INVALID }
    case 'malformed passcode':
      return { kind, path: connect, headers: auth(corrupt(pick(credentials.valid, n).value)), status: 400, body: INVALID }
    case "another account's passcode":
      return { kind, path: connect, headers: auth(pick(credentials.otherAccount, n)), status: 400, body: INVALID }
    case 'missing partner':
      return { kind, path: '/v1/connect', headers: auth(pick(credentials.valid, n).value), status: 400, body: MISSING_PARTNER }
    case 'partner not whitelisted': {
      const name = `stranger-${n % 1_000}`
      const body = JSON.stringify({ status: 'fail', error: `Partner not whitelisted ${name}`, code: 403 })
      return { kind, path: `/v1/connect?partner=${name}`, headers: auth(pick(credentials.valid, n).value), status: 403, body }
    }
    case 'no credentials':
      return { kind, path: '/1/events.json', headers: {}, status: 400, body: INVALID }
  }
}

/** What a load run saw. */
export interface TrafficTally {
  readonly requests: number
  /** Count per `kind → status body`; a kind with two entries got an unexpected answer. */
  readonly answers: Record<string, number>
  /** How many answers were not the expected one (timeouts and socket errors included). */
  readonly unexpected: number
  /** Up to 10 examples of unexpected answers (no passcode in them: bodies never carry one). */
  readonly examples: string[]
  /** Latency percentiles over every request, ms. */
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number }
}

function send(agent: Agent, port: number, planned: Planned): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: planned.path, headers: planned.headers, agent, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')))
    req.on('error', reject)
    req.end()
  })
}

const matches = (planned: Planned, status: number, body: string): boolean => {
  if (status !== planned.status) return false
  if (typeof planned.body === 'string') return body === planned.body
  try {
    return JSON.stringify(JSON.parse(body)) === JSON.stringify(planned.body)
  } catch {
    return false
  }
}

/**
 * Sends the mix to `127.0.0.1:port` from `concurrency` keep-alive connections until
 * `until()` says stop, and at least one whole round of the mix (so that a run on a slow
 * machine still sends every kind), checking every answer against the one expected.
 */
export async function runTraffic(port: number, credentials: SoakCredentials, concurrency: number, until: () => boolean): Promise<TrafficTally> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const answers: Record<string, number> = {}
  const examples: string[] = []
  const latencies: number[] = []
  let next = 0
  let unexpected = 0

  const worker = async (): Promise<void> => {
    while (next < SCHEDULE.length || !until()) {
      const planned = plan(credentials, next++)
      const started = performance.now()
      let key: string
      try {
        const { status, body } = await send(agent, port, planned)
        const ok = matches(planned, status, body)
        key = `${planned.kind} → ${status}${ok ? '' : ` UNEXPECTED ${body.slice(0, 200)}`}`
        if (!ok) unexpected++
      } catch (error) {
        unexpected++
        key = `${planned.kind} → UNEXPECTED ${(error as Error).message}`
      }
      latencies.push(performance.now() - started)
      answers[key] = (answers[key] ?? 0) + 1
      if (key.includes('UNEXPECTED') && examples.length < 10) examples.push(key)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  agent.destroy()

  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10
  return { requests: latencies.length, answers, unexpected, examples, latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) } }
}
