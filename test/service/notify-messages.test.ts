import { describe, expect, it } from 'vitest'
import { defaultNotificationTemplates, type NotificationMessageData } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { escapeHtml } from '../../src/service/notifier/notification-messages'
import { memoryMailer } from '../../src/memory'
import { admin, setup } from '../helpers/service'
import { everyone } from './notify-fixtures'

describe('notification messages', () => {
  it('name the passcode, its hint and the expiry in UTC (ISO and human), never the value', async () => {
    const mailer = memoryMailer()
    const { auth, clock } = setup({ mailer, recipients: everyone })
    clock.set(Date.UTC(2026, 10, 1, 12, 30))
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme <b>"CRM"</b> & co', expiry: 30 })
    clock.advance(DAY_MS)
    await auth.notifyExpirations()
    clock.set(passcode.expiresAt!.getTime())
    await auth.notifyExpirations()

    const [soon, expired] = mailer.messages
    expect(soon?.to).toEqual(['admin@acc.example'])
    expect(soon?.subject).toBe('Passcode "Acme <b>"CRM"</b> & co" expires in 29 days')
    expect(expired?.subject).toBe('Passcode "Acme <b>"CRM"</b> & co" has expired')
    for (const message of [soon!, expired!]) {
      expect(message.text).toContain('"Acme <b>"CRM"</b> & co"')
      expect(message.text).toContain(passcode.hint)
      expect(message.text).toContain('2026-12-01T12:30:00.000Z')
      expect(message.text).toContain('Tuesday, 1 December 2026, 12:30 UTC')
      expect(message.html).toContain('<strong>Acme &lt;b&gt;&quot;CRM&quot;&lt;/b&gt; &amp; co</strong>')
      expect(message.html).not.toContain('<b>')
      expect(message.html).toContain(escapeHtml(passcode.hint))
      expect(message.html).toContain('datetime="2026-12-01T12:30:00.000Z"')
      expect(message.html).toContain('Tuesday, 1 December 2026, 12:30 UTC')
      const whole = JSON.stringify(message)
      expect(whole).not.toContain(value)
      // Not even the secret part without its prefix.
      expect(whole).not.toContain(value.slice(4, 20))
    }
  })

  it('says "1 day" in the singular', () => {
    const data: NotificationMessageData = {
      kind: 'expiring_soon',
      accountId: 'acc',
      passcodeId: 'p',
      name: 'N',
      hint: 'psc_…abcd',
      expiresAt: new Date(0),
      expiresAtIso: new Date(0).toISOString(),
      expiresAtText: 'Thursday, 1 January 1970, 00:00 UTC',
      daysLeft: 1,
    }
    expect(defaultNotificationTemplates.expiring_soon(data).subject).toBe('Passcode "N" expires in 1 day')
  })

  it('escapes all five HTML special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;')
  })

  it('uses host templates where given and the defaults elsewhere', async () => {
    const mailer = memoryMailer()
    const seen: NotificationMessageData[] = []
    const { auth, clock } = setup({
      mailer,
      recipients: everyone,
      templates: {
        expired: (data) => {
          seen.push(data)
          return { subject: `[Acme] ${data.name} expired`, text: `${data.hint} ${data.expiresAtIso}`, html: `<p>${escapeHtml(data.name)}</p>` }
        },
      },
    })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Custom', expiry: 3 })
    await auth.notifyExpirations()
    clock.advance(3 * DAY_MS)
    await auth.notifyExpirations()
    expect(mailer.messages.map((message) => message.subject)).toEqual(['Passcode "Custom" expires in 3 days', '[Acme] Custom expired'])
    expect(seen).toMatchObject([{ kind: 'expired', accountId: 'acc', passcodeId: passcode.id, hint: passcode.hint, daysLeft: 0 }])
    expect(Object.keys(seen[0]!)).not.toContain('value')
  })

  it('counts a template that throws or returns a broken message as ERR_TEMPLATE_FAILED', async () => {
    for (const template of [
      () => {
        throw new Error('boom')
      },
      () => ({ subject: 'x' }) as never,
      () => ({ subject: 'two\r\nBcc: victim@example.com', text: '', html: '' }),
    ]) {
      const mailer = memoryMailer()
      const { auth } = setup({ mailer, recipients: everyone, templates: { expiring_soon: template } })
      await auth.passcodes.create(admin, 'acc', { name: 'T', expiry: 3 })
      const report = await auth.notifyExpirations()
      expect(report.failed).toMatchObject([{ reason: 'ERR_TEMPLATE_FAILED' }])
      expect(mailer.messages).toEqual([])
    }
  })
})
