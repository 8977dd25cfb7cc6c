import { describe, expect, it } from 'vitest'
import {
  deliveryPassed,
  judgeDelivery,
  mailSubject,
  type DeliveryExpectations,
  type DeliverySnapshot,
  type ReceivedMail,
  type ReceivedWebhook,
} from '../../scripts/soak/fleet-delivery'

/**
 * The judge of the fleet soak's chaos mode for delivery (`npm run soak -- --fleet
 * --delivery`): the soak passes only when it counts nothing, so each count must see what
 * it is for. One clean run is judged clean; then each promise is broken once in the
 * inputs (an event lost, one event under two webhook-ids, an email lost or doubled, an
 * audit record lost, an event without its change) and must be counted. The soak itself
 * (five minutes, with the faults) is in docs/soak.md.
 */

const body = (type: string, id: string, at: number) =>
  `{"type":"${type}","timestamp":"${new Date(at).toISOString()}","data":{"passcode":{"id":"${id}"}}}`

function cleanRun(): {
  expectations: DeliveryExpectations
  snapshot: DeliverySnapshot
  received: ReceivedWebhook[]
  mails: ReceivedMail[]
} {
  return {
    expectations: {
      changes: [
        { accountId: 'acc_1', passcodeId: 'pc_1', type: 'passcode.created', action: 'passcode.created' },
        { accountId: 'acc_2', passcodeId: 'pc_2', type: 'passcode.created', action: 'passcode.created' },
      ],
      expiring: [{ accountId: 'acc_2', passcodeId: 'pc_2', name: 'Soak 2 expiring' }],
      leaks: [{ accountId: 'acc_1', passcodeId: 'pc_1' }],
    },
    snapshot: {
      events: [
        { id: 'ev_1', accountId: 'acc_1', type: 'passcode.created', at: 1, passcodeId: 'pc_1' },
        { id: 'ev_2', accountId: 'acc_2', type: 'passcode.created', at: 2, passcodeId: 'pc_2' },
        { id: 'ev_3', accountId: 'acc_2', type: 'passcode.expiring_soon', at: 3, passcodeId: 'pc_2' },
        { id: 'ev_4', accountId: 'acc_1', type: 'passcode.leaked', at: 4, passcodeId: 'pc_1' },
        { id: 'ev_5', accountId: 'acc_1', type: 'passcode.disabled', at: 4, passcodeId: 'pc_1' },
      ],
      deliveries: ['1', '2', '3', '4', '5'].map((n) => ({
        id: `msg_${n}`,
        accountId: n === '2' || n === '3' ? 'acc_2' : 'acc_1',
        eventId: `ev_${n}`,
        state: 'succeeded',
      })),
      audit: [
        { accountId: 'acc_1', action: 'passcode.created', targetId: 'pc_1', at: 1, kind: null },
        { accountId: 'acc_2', action: 'passcode.created', targetId: 'pc_2', at: 2, kind: null },
        { accountId: 'acc_2', action: 'notification.sent', targetId: 'pc_2', at: 3, kind: 'expiring_soon' },
        { accountId: 'acc_1', action: 'passcode.leak_reported', targetId: 'pc_1', at: 4, kind: null },
        { accountId: 'acc_1', action: 'notification.sent', targetId: 'pc_1', at: 5, kind: 'leak' },
      ],
      leakMarks: [{ accountId: 'acc_1', key: 'pc_1', name: 'Soak 1', notifiedAt: 5 }],
      pendingNotifications: 0,
    },
    received: [
      { webhookId: 'msg_1', accountId: 'acc_1', mode: '500', body: body('passcode.created', 'pc_1', 1), answer: 500 },
      { webhookId: 'msg_1', accountId: 'acc_1', mode: '500', body: body('passcode.created', 'pc_1', 1), answer: 204 },
      { webhookId: 'msg_2', accountId: 'acc_2', mode: 'ok', body: body('passcode.created', 'pc_2', 2), answer: 204 },
      { webhookId: 'msg_3', accountId: 'acc_2', mode: 'ok', body: body('passcode.expiring_soon', 'pc_2', 3), answer: 204 },
      { webhookId: 'msg_4', accountId: 'acc_1', mode: '500', body: body('passcode.leaked', 'pc_1', 4), answer: 204 },
      // Sent again after a lease ended: the same webhook-id, allowed.
      { webhookId: 'msg_4', accountId: 'acc_1', mode: '500', body: body('passcode.leaked', 'pc_1', 4), answer: 204 },
      { webhookId: 'msg_5', accountId: 'acc_1', mode: '500', body: body('passcode.disabled', 'pc_1', 4), answer: 204 },
    ],
    mails: [
      { to: ['admin+acc_2@soak.test'], subject: 'Passcode "Soak 2 expiring" expires in 10 days' },
      { to: ['admin+acc_1@soak.test'], subject: 'Passcode "Soak 1" was found exposed and has been disabled' },
    ],
  }
}

const judge = (run: ReturnType<typeof cleanRun>) => judgeDelivery({ ...run, invalidSignatures: 0 })

describe('the judge of the chaos soak for delivery', () => {
  it('counts nothing in a clean run, and a redelivery with the same webhook-id only as such', () => {
    const judgement = judge(cleanRun())
    expect(judgement.problems).toEqual([])
    expect(judgement.counts).toEqual({
      eventsLost: 0,
      duplicatesOtherId: 0,
      redeliveriesSameId: 1,
      invalidSignatures: 0,
      expiryEmailsLost: 0,
      expiryEmailsDoubled: 0,
      leakEmailsLost: 0,
      leakEmailsDoubled: 0,
      auditLost: 0,
      eventsWithoutChange: 0,
    })
    expect(deliveryPassed(judgement.counts)).toBe(true)
  })

  it('counts an event lost: a delivery failed, one never acknowledged, a change answered without its event', () => {
    const run = cleanRun()
    run.snapshot = { ...run.snapshot, deliveries: run.snapshot.deliveries.map((d) => (d.id === 'msg_2' ? { ...d, state: 'failed' } : d)) }
    run.received = run.received.filter((hit) => hit.webhookId !== 'msg_5' && hit.webhookId !== 'msg_2')
    run.expectations = {
      ...run.expectations,
      changes: [...run.expectations.changes, { accountId: 'acc_1', passcodeId: 'pc_1', type: 'passcode.rotated', action: 'passcode.rotated' }],
    }
    const { counts } = judge(run)
    // msg_2 failed (and its change is then undelivered), msg_5 never acknowledged, the rotation has no event.
    expect(counts.eventsLost).toBe(4)
    expect(deliveryPassed(counts)).toBe(false)
  })

  it('counts one event under two webhook-ids, and a webhook-id the database does not hold', () => {
    const run = cleanRun()
    run.received.push({ webhookId: 'msg_9', accountId: 'acc_2', mode: 'ok', body: body('passcode.created', 'pc_2', 2), answer: 204 })
    const { counts } = judge(run)
    expect(counts.duplicatesOtherId).toBe(2)
    expect(deliveryPassed(counts)).toBe(false)
  })

  it('counts emails lost and doubled', () => {
    const doubled = cleanRun()
    doubled.mails.push(...doubled.mails)
    expect(judge(doubled).counts).toMatchObject({ expiryEmailsDoubled: 1, leakEmailsDoubled: 1, expiryEmailsLost: 0, leakEmailsLost: 0 })
    const lost = cleanRun()
    lost.mails = []
    lost.expectations = { ...lost.expectations, leaks: [...lost.expectations.leaks, { accountId: 'acc_2', passcodeId: 'pc_2' }] }
    // The expiry email; the leak mark's email; a leak answered without a mark.
    expect(judge(lost).counts).toMatchObject({ expiryEmailsLost: 1, leakEmailsLost: 2 })
  })

  it('counts an audit record lost, and an event without the record of its change', () => {
    const run = cleanRun()
    run.snapshot = {
      ...run.snapshot,
      audit: run.snapshot.audit.filter((record) => record.action !== 'passcode.created' || record.targetId !== 'pc_2'),
    }
    const { counts } = judge(run)
    expect(counts.auditLost).toBe(1)
    expect(counts.eventsWithoutChange).toBe(1)
    expect(deliveryPassed(counts)).toBe(false)
  })

  it('reads a subject that nodemailer encoded (RFC 2047) and folded', () => {
    const raw = 'From: soak@soak.test\r\nSubject: =?UTF-8?Q?Passcode_=22Soak_1_expiring=22_expires_i?=\r\n =?UTF-8?Q?n_10_days?=\r\n\r\nbody'
    expect(mailSubject(raw)).toBe('Passcode "Soak 1 expiring" expires in 10 days')
    expect(mailSubject('Subject: =?UTF-8?B?w6l0w6k=?=\r\n\r\n')).toBe('été')
  })
})
