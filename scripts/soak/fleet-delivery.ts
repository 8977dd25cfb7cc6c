import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type pg from 'pg'
import { SMTPServer } from 'smtp-server'
import { verifyWebhook } from '../../src/webhooks/index'

/*
 * The chaos mode for delivery of the fleet soak (`npm run soak -- --fleet --delivery`,
 * SPEC §5.53, §5.14, §5.42): loopback webhook receivers that fail, a real SMTP server
 * that the runner stops and starts, and the judge of what reached them. Every account
 * has one endpoint (events: all), on a receiver of one of four kinds:
 * - `ok`: answers 204 to every attempt whose signature verifies;
 * - `500`, `hang`, `drop`: the first attempt of every other `webhook-id` (its hash even)
 *   is answered 500, held past the attempt's 15 s and then cut, or cut at once (the
 *   socket destroyed, no answer); later attempts are answered as `ok` does.
 * A second failure of one delivery would put its next attempt 5 minutes later, past the
 * run's drain; none happens unless the fleet fails (an attempt lost with its instance
 * is sent again when its lease ends, and is not a failed attempt).
 * The judge reads the database after the drain and compares it with what the runner saw
 * answered (changes, leak reports, expiring passcodes) and what the receivers and the
 * SMTP server got.
 */

/** The receiver kinds, given to the accounts in turn. */
export const RECEIVER_MODES = ['ok', '500', 'hang', 'drop'] as const
export type ReceiverMode = (typeof RECEIVER_MODES)[number]

/** How long a hanging receiver holds an attempt before it cuts the connection: past the sender's 15 s. */
export const HANG_MS = 20_000

/** One request as a receiver got it. */
export interface ReceivedWebhook {
  readonly webhookId: string
  readonly accountId: string
  readonly mode: ReceiverMode
  readonly body: string
  /** The status it answered, or how it failed the attempt on purpose. */
  readonly answer: number | 'hang' | 'drop'
}

export interface Receivers {
  /** The endpoint URL of `accountId`'s receiver of kind `mode`. */
  url(mode: ReceiverMode, accountId: string): string
  /** The signing secret of an account's endpoint, as its creation showed it. */
  readonly secrets: Map<string, string>
  readonly received: ReceivedWebhook[]
  /** Requests whose signature did not verify (answered 400). */
  readonly invalidSignatures: number
  close(): Promise<void>
}

/** Whether this delivery's first attempt fails on purpose (half of them, by its id). */
export function failsFirst(webhookId: string): boolean {
  let sum = 0
  for (const char of webhookId) sum = (sum + char.charCodeAt(0)) % 2
  return sum === 0
}

/** Starts the receivers on 127.0.0.1 (one server, the kind and account in the path). */
export async function startReceivers(): Promise<Receivers> {
  const secrets = new Map<string, string>()
  const received: ReceivedWebhook[] = []
  const seen = new Set<string>()
  const held = new Set<ReturnType<typeof setTimeout>>()
  let invalidSignatures = 0

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const [, mode, accountId] = (request.url ?? '').split('/') as [string, ReceiverMode, string]
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const webhookId = String(request.headers['webhook-id'] ?? '')
    const first = !seen.has(webhookId)
    seen.add(webhookId)
    const record = (answer: ReceivedWebhook['answer']) => received.push({ webhookId, accountId, mode, body, answer })
    if (mode !== 'ok' && first && failsFirst(webhookId)) {
      if (mode === '500') {
        record(500)
        response.writeHead(500).end()
      } else if (mode === 'drop') {
        record('drop')
        request.socket.destroy()
      } else {
        record('hang')
        const timer = setTimeout(() => {
          held.delete(timer)
          request.socket.destroy()
        }, HANG_MS)
        held.add(timer)
      }
      return
    }
    const secret = secrets.get(accountId)
    const valid =
      secret !== undefined &&
      (await verifyWebhook(secret, request.headers as Record<string, string>, body).then(
        () => true,
        () => false,
      ))
    if (!valid) invalidSignatures++
    record(valid ? 204 : 400)
    response.writeHead(valid ? 204 : 400).end()
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy())
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: (mode, accountId) => `http://127.0.0.1:${port}/${mode}/${accountId}`,
    secrets,
    received,
    get invalidSignatures() {
      return invalidSignatures
    },
    async close() {
      for (const timer of held) clearTimeout(timer)
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** An email as the soak's SMTP server got it. */
export interface ReceivedMail {
  readonly to: readonly string[]
  readonly subject: string
}

/** The soak's SMTP server (the `smtp-server` package) on a fixed port of 127.0.0.1, which the runner stops and starts. */
export interface SoakSmtp {
  readonly port: number
  readonly mails: ReceivedMail[]
  /** Stops listening at once (new connections are refused) and ends the open ones. */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
  close(): Promise<void>
}

/** The `Subject:` header of a raw message, unfolded and its encoded words (RFC 2047, `Q` and `B`) decoded. */
export function mailSubject(raw: string): string {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? ''
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ')
  const value = /^subject: ?(.*)$/im.exec(unfolded)?.[1]?.trim() ?? ''
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g, (_, encoding: string, text: string) =>
    encoding.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_hex, code: string) => String.fromCharCode(parseInt(code, 16))),
          'latin1',
        ).toString('utf8'),
  )
}

export async function startSoakSmtp(): Promise<SoakSmtp> {
  const mails: ReceivedMail[] = []
  let server: SMTPServer | undefined
  let port = 0
  const listen = async (): Promise<void> => {
    const next = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 100,
      onData(stream, session, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), subject: mailSubject(Buffer.concat(chunks).toString('utf8')) })
          callback()
        })
      },
    })
    next.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      next.server.once('error', reject)
      next.listen(port, '127.0.0.1', () => resolve())
    })
    port = (next.server.address() as AddressInfo).port
    server = next
  }
  await listen()
  const stop = async (): Promise<void> => {
    const current = server
    server = undefined
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()))
  }
  return { port, mails, stop, start: listen, close: stop }
}

/** What the runner saw answered: the changes whose events and emails must arrive. */
export interface DeliveryExpectations {
  /** Each change answered 200: the webhook event type it makes, and the audit action it records. */
  readonly changes: readonly { readonly accountId: string; readonly passcodeId: string; readonly type: string; readonly action: string }[]
  /** Passcodes created to expire within 30 days: each gets one "expires in" email (and its event and audit record). */
  readonly expiring: readonly { readonly accountId: string; readonly passcodeId: string; readonly name: string }[]
  /** Leak reports answered `true_positive`: each leaves a leak mark, one email, its event and audit record. */
  readonly leaks: readonly { readonly accountId: string; readonly passcodeId: string }[]
}

/** What the database holds at the end of the run. */
export interface DeliverySnapshot {
  readonly deliveries: readonly { readonly id: string; readonly accountId: string; readonly eventId: string; readonly state: string }[]
  readonly events: readonly {
    readonly id: string
    readonly accountId: string
    readonly type: string
    readonly at: number
    readonly passcodeId: string | null
  }[]
  readonly audit: readonly {
    readonly accountId: string
    readonly action: string
    readonly targetId: string | null
    readonly at: number
    readonly kind: string | null
  }[]
  readonly leakMarks: readonly {
    readonly accountId: string
    readonly key: string
    readonly name: string | null
    readonly notifiedAt: number | null
  }[]
  readonly pendingNotifications: number
}

/** Reads the snapshot the judge needs (one statement per table, in the store's default schema `passcode_auth`). */
export async function readDeliverySnapshot(pool: pg.Pool): Promise<DeliverySnapshot> {
  const deliveries = await pool.query<{ id: string; account_id: string; event_id: string; state: string }>(
    'SELECT id, account_id, event_id, state FROM passcode_auth.webhook_deliveries',
  )
  const events = await pool.query<{ id: string; account_id: string; type: string; at: string; passcode_id: string | null }>(
    `SELECT id, account_id, type, at, data->'passcode'->>'id' AS passcode_id FROM passcode_auth.webhook_events`,
  )
  const audit = await pool.query<{ account_id: string; action: string; target_id: string | null; at: string; kind: string | null }>(
    `SELECT account_id, action, target_id, at, (changes::jsonb)->'notification'->>'after' AS kind FROM passcode_auth.audit_records`,
  )
  const marks = await pool.query<{ account_id: string; key: string; name: string | null; notified_at: string | null }>(
    'SELECT account_id, key, name, notified_at FROM passcode_auth.leak_marks',
  )
  const pending = await pool.query<{ n: string }>('SELECT count(*) AS n FROM passcode_auth.notifications WHERE sent_at IS NULL')
  return {
    deliveries: deliveries.rows.map((row) => ({ id: row.id, accountId: row.account_id, eventId: row.event_id, state: row.state })),
    events: events.rows.map((row) => ({ id: row.id, accountId: row.account_id, type: row.type, at: Number(row.at), passcodeId: row.passcode_id })),
    audit: audit.rows.map((row) => ({ accountId: row.account_id, action: row.action, targetId: row.target_id, at: Number(row.at), kind: row.kind })),
    leakMarks: marks.rows.map((row) => ({
      accountId: row.account_id,
      key: row.key,
      name: row.name,
      notifiedAt: row.notified_at === null ? null : Number(row.notified_at),
    })),
    pendingNotifications: Number(pending.rows[0]!.n),
  }
}

/** Whether the drain is over: nothing left to deliver or to email. */
export function drained(snapshot: DeliverySnapshot, expectations: DeliveryExpectations, mails: readonly ReceivedMail[]): boolean {
  return (
    snapshot.deliveries.every((delivery) => delivery.state !== 'pending') &&
    snapshot.leakMarks.every((mark) => mark.notifiedAt !== null) &&
    snapshot.pendingNotifications === 0 &&
    expectations.expiring.every((passcode) => mails.some((mail) => mail.subject.startsWith(`Passcode "${passcode.name}" expires in`)))
  )
}

/** The counts the delivery chaos mode promises (each must be 0, but `redeliveriesSameId`, which is counted only). */
export interface DeliveryCounts {
  /** A change answered 200 with no event delivered for it; an event not delivered (its delivery failed, or pending after the drain, or never answered 2xx by its receiver). */
  readonly eventsLost: number
  /** The same event delivered under two `webhook-id`s, or a `webhook-id` the database does not know. */
  readonly duplicatesOtherId: number
  /** Deliveries answered 2xx more than once with the same `webhook-id` (at least once; allowed). */
  readonly redeliveriesSameId: number
  /** A signature that did not verify. */
  readonly invalidSignatures: number
  readonly expiryEmailsLost: number
  readonly expiryEmailsDoubled: number
  readonly leakEmailsLost: number
  readonly leakEmailsDoubled: number
  /** A change answered 200 (a management call, a leak report, an expiry email) without its audit record. */
  readonly auditLost: number
  /** An event without the audit record of its change, or such an audit record without its event. */
  readonly eventsWithoutChange: number
}

export interface DeliveryJudgement {
  readonly counts: DeliveryCounts
  /** Totals, for the report. */
  readonly totals: {
    readonly events: number
    readonly deliveries: number
    readonly attempts: Record<string, number>
    readonly expiryEmails: number
    readonly leakEmails: number
    readonly audit: number
  }
  /** What broke a promise, in words (at most 50). */
  readonly problems: readonly string[]
}

/** Audit actions whose record makes an event of this type in the same transaction (SPEC §5.53; the events the soak makes). */
const EVENT_OF_ACTION: Record<string, string> = {
  'passcode.created': 'passcode.created',
  'passcode.rotated': 'passcode.rotated',
  'passcode.disabled': 'passcode.disabled',
  'passcode.deleted': 'passcode.deleted',
  'passcode.leak_reported': 'passcode.leaked',
}

const tally = <K>(map: Map<K, number>, key: K, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by)
}

/** Judges a run: what the runner expected against the database, the receivers and the SMTP server. */
export function judgeDelivery(input: {
  readonly expectations: DeliveryExpectations
  readonly snapshot: DeliverySnapshot
  readonly received: readonly ReceivedWebhook[]
  readonly invalidSignatures: number
  readonly mails: readonly ReceivedMail[]
}): DeliveryJudgement {
  const { expectations, snapshot, received, mails } = input
  const problems: string[] = []
  const problem = (text: string): void => {
    if (problems.length < 50) problems.push(text)
  }
  const events = new Map(snapshot.events.map((event) => [event.id, event]))
  const deliveryById = new Map(snapshot.deliveries.map((delivery) => [delivery.id, delivery]))

  // What the receivers acknowledged (2xx), per webhook-id, and which bodies arrived under which ids.
  const acked = new Map<string, number>()
  const idsOfBody = new Map<string, Set<string>>()
  const attempts: Record<string, number> = {}
  for (const hit of received) {
    const answer = String(hit.answer)
    attempts[answer] = (attempts[answer] ?? 0) + 1
    if (typeof hit.answer === 'number' && hit.answer >= 200 && hit.answer < 300) tally(acked, hit.webhookId)
    const key = `${hit.accountId}\n${hit.body}`
    const ids = idsOfBody.get(key) ?? new Set<string>()
    ids.add(hit.webhookId)
    idsOfBody.set(key, ids)
  }

  let eventsLost = 0
  let duplicatesOtherId = 0
  let redeliveriesSameId = 0
  // Every delivery in the database: succeeded, and acknowledged by its receiver.
  const deliveriesOfEvent = new Map<string, number>()
  const deliveredOf = new Map<string, number>() // `${account} ${type} ${passcode}` → delivered events
  for (const delivery of snapshot.deliveries) {
    tally(deliveriesOfEvent, delivery.eventId)
    const event = events.get(delivery.eventId)
    const times = acked.get(delivery.id) ?? 0
    if (delivery.state !== 'succeeded' || times === 0) {
      eventsLost++
      problem(`event ${event?.type ?? delivery.eventId} (delivery ${delivery.id}) ${delivery.state}, acknowledged ${times} times`)
      continue
    }
    redeliveriesSameId += times - 1
    if (event !== undefined) tally(deliveredOf, `${event.accountId} ${event.type} ${event.passcodeId}`)
  }
  for (const event of snapshot.events) {
    const count = deliveriesOfEvent.get(event.id) ?? 0
    if (count === 0) {
      eventsLost++
      problem(`event ${event.type} of ${event.accountId} has no delivery (every account has an endpoint)`)
    } else if (count > 1) {
      duplicatesOtherId += count - 1
      problem(`event ${event.type} of ${event.accountId} has ${count} deliveries to one endpoint`)
    }
  }
  for (const [webhookId] of acked) {
    if (!deliveryById.has(webhookId)) {
      duplicatesOtherId++
      problem(`a receiver acknowledged webhook-id ${webhookId}, which the database does not hold`)
    }
  }
  for (const ids of idsOfBody.values()) {
    if (ids.size > 1) {
      duplicatesOtherId += ids.size - 1
      problem(`one event body arrived under ${ids.size} webhook-ids: ${[...ids].join(', ')}`)
    }
  }
  // Every change answered 200 has its event delivered (as many as were answered, for repeated rotations).
  const expectedEvents = new Map<string, number>()
  for (const change of expectations.changes) tally(expectedEvents, `${change.accountId} ${change.type} ${change.passcodeId}`)
  for (const leak of expectations.leaks) tally(expectedEvents, `${leak.accountId} passcode.leaked ${leak.passcodeId}`)
  for (const passcode of expectations.expiring) tally(expectedEvents, `${passcode.accountId} passcode.expiring_soon ${passcode.passcodeId}`)
  for (const [key, count] of expectedEvents) {
    const missing = count - (deliveredOf.get(key) ?? 0)
    if (missing > 0) {
      eventsLost += missing
      problem(`${missing} event(s) ${key} answered but not delivered`)
    }
  }

  // Audit records: every change answered has its record; every record of an event-making action has its event, and back.
  const auditOf = new Map<string, number>()
  for (const record of snapshot.audit) {
    const action = record.action === 'notification.sent' && record.kind === 'expiring_soon' ? 'notification.expiring_soon' : record.action
    tally(auditOf, `${record.accountId} ${action} ${record.targetId}`)
  }
  const expectedAudit = new Map<string, number>()
  for (const change of expectations.changes) tally(expectedAudit, `${change.accountId} ${change.action} ${change.passcodeId}`)
  for (const leak of expectations.leaks) tally(expectedAudit, `${leak.accountId} passcode.leak_reported ${leak.passcodeId}`)
  for (const passcode of expectations.expiring) tally(expectedAudit, `${passcode.accountId} notification.expiring_soon ${passcode.passcodeId}`)
  let auditLost = 0
  for (const [key, count] of expectedAudit) {
    const missing = count - (auditOf.get(key) ?? 0)
    if (missing > 0) {
      auditLost += missing
      problem(`${missing} audit record(s) ${key} missing`)
    }
  }
  let eventsWithoutChange = 0
  const eventsAt = new Set(snapshot.events.map((event) => `${event.accountId} ${event.at} ${event.type}`))
  const recordsAt = new Set<string>()
  for (const record of snapshot.audit) {
    const type =
      record.action === 'notification.sent' && (record.kind === 'expiring_soon' || record.kind === 'expired')
        ? `passcode.${record.kind}`
        : EVENT_OF_ACTION[record.action]
    if (type === undefined) continue
    recordsAt.add(`${record.accountId} ${record.at} ${type}`)
    // A leak report's record also makes the event of what it did.
    if (record.action === 'passcode.leak_reported') recordsAt.add(`${record.accountId} ${record.at} passcode.disabled`)
    if (!eventsAt.has(`${record.accountId} ${record.at} ${type}`)) {
      eventsWithoutChange++
      problem(`audit record ${record.action} of ${record.accountId} at ${record.at} has no ${type} event`)
    }
  }
  for (const event of snapshot.events) {
    if (!recordsAt.has(`${event.accountId} ${event.at} ${event.type}`)) {
      eventsWithoutChange++
      problem(`event ${event.type} of ${event.accountId} at ${event.at} has no audit record of its change`)
    }
  }

  // Emails: one per expiring passcode, one per leak mark.
  const subjects = new Map<string, number>()
  for (const mail of mails) tally(subjects, mail.subject.replace(/ expires in .*$/, ' expires in'))
  let expiryEmailsLost = 0
  let expiryEmailsDoubled = 0
  for (const passcode of expectations.expiring) {
    const count = subjects.get(`Passcode "${passcode.name}" expires in`) ?? 0
    if (count === 0) {
      expiryEmailsLost++
      problem(`no expiry email for ${passcode.accountId}/${passcode.passcodeId}`)
    }
    if (count > 1) {
      expiryEmailsDoubled += count - 1
      problem(`${count} expiry emails for ${passcode.accountId}/${passcode.passcodeId}`)
    }
  }
  let leakEmailsLost = 0
  let leakEmailsDoubled = 0
  const marked = new Set(snapshot.leakMarks.map((mark) => `${mark.accountId} ${mark.key}`))
  for (const leak of expectations.leaks) {
    if (!marked.has(`${leak.accountId} ${leak.passcodeId}`)) {
      leakEmailsLost++
      problem(`leak report of ${leak.accountId}/${leak.passcodeId} answered but no leak mark`)
    }
  }
  for (const mark of snapshot.leakMarks) {
    const count = [...subjects]
      .filter(([subject]) => subject.startsWith(`Passcode "${mark.name}" was found exposed`))
      .reduce((sum, [, n]) => sum + n, 0)
    if (count === 0 || mark.notifiedAt === null) {
      leakEmailsLost++
      problem(`leak of ${mark.accountId}/${mark.key}: ${count} emails, notified ${mark.notifiedAt ?? 'never'}`)
    }
    if (count > 1) {
      leakEmailsDoubled += count - 1
      problem(`${count} leak emails for ${mark.accountId}/${mark.key}`)
    }
  }
  if (input.invalidSignatures > 0) problem(`${input.invalidSignatures} attempts with a signature that did not verify`)

  return {
    counts: {
      eventsLost,
      duplicatesOtherId,
      redeliveriesSameId,
      invalidSignatures: input.invalidSignatures,
      expiryEmailsLost,
      expiryEmailsDoubled,
      leakEmailsLost,
      leakEmailsDoubled,
      auditLost,
      eventsWithoutChange,
    },
    totals: {
      events: snapshot.events.length,
      deliveries: snapshot.deliveries.length,
      attempts,
      expiryEmails: mails.filter((mail) => mail.subject.includes(' expires in ')).length,
      leakEmails: mails.filter((mail) => mail.subject.includes(' was found exposed')).length,
      audit: snapshot.audit.length,
    },
    problems,
  }
}

/** Whether every count of the judgement that must be 0 is. */
export function deliveryPassed(counts: DeliveryCounts): boolean {
  return Object.entries(counts).every(([name, value]) => name === 'redeliveriesSameId' || value === 0)
}
