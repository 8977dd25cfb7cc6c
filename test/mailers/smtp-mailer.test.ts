import { afterEach, describe, expect, it } from 'vitest'
import { InvalidOptionsError, MailerError as CoreMailerError } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { MailerError, SMTP_DEFAULT_TIMEOUTS, smtpMailer, type SmtpMailerOptions } from '../../src/mailers/smtp/index'
import { admin, setup } from '../helpers/service'
import { bodyOf, parseMime } from './mime'
import { freePort, startSilentServer, startSmtpServer } from './smtp-test-server'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A mailer pointed at 127.0.0.1:`port` the way a local test server needs: no TLS. */
function localMailer(port: number, extra: Partial<SmtpMailerOptions> = {}) {
  const mailer = smtpMailer({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, from: 'Passcodes <no-reply@service.example>', ...extra })
  cleanups.push(() => mailer.close())
  return mailer
}

const message = { to: ['ops@acc.example'], subject: 'Hello', text: 'Hello', html: '<p>Hello</p>' }

describe('smtpMailer options', () => {
  it('requires `from` and validates every option with an error that names it', () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /`options`/],
      [{}, /`from`: is required/],
      [{ from: 'not an address' }, /`from`/],
      [{ from: 'a@b.example\r\nBcc: victim@example.com' }, /`from`/],
      [{ from: 'a@b.example', hots: 'smtp.example.com' }, /unknown option `hots`/],
      [{ from: 'a@b.example', port: 0 }, /`port`/],
      [{ from: 'a@b.example', connectionTimeoutMs: -1 }, /`connectionTimeoutMs`/],
      [{ from: 'a@b.example', socketTimeoutMs: 1.5 }, /`socketTimeoutMs`/],
      [{ from: 'a@b.example', requireTLS: true, ignoreTLS: true }, /`ignoreTLS`: requireTLS and ignoreTLS exclude each other/],
      [{ from: 'a@b.example', auth: { user: 'u' } }, /`auth.pass`/],
      [{ from: 'a@b.example', replyTo: 'nope' }, /`replyTo`/],
    ]
    for (const [options, pattern] of cases) {
      expect(() => smtpMailer(options as SmtpMailerOptions)).toThrow(InvalidOptionsError)
      expect(() => smtpMailer(options as SmtpMailerOptions)).toThrow(pattern)
    }
  })

  it('never echoes a credential in an option error', () => {
    const error = (() => {
      try {
        smtpMailer({ from: 'bad', auth: { user: 'mailer-user', pass: 'hunter2-secret' } })
      } catch (caught) {
        return caught as Error
      }
      throw new Error('expected a throw')
    })()
    expect(error.message).not.toContain('hunter2')
    expect(error.message).not.toContain('mailer-user')
  })

  it('documents its timeout defaults, far below nodemailer’s own', () => {
    expect(SMTP_DEFAULT_TIMEOUTS).toEqual({ connectionTimeoutMs: 10_000, greetingTimeoutMs: 10_000, socketTimeoutMs: 30_000 })
  })
})

describe('smtpMailer against a real SMTP server on 127.0.0.1', () => {
  it('delivers the expiry notifications to every recipient: subject, To, name, hint and date, never the value', async () => {
    const server = await startSmtpServer()
    cleanups.push(() => server.close())
    const { auth, clock } = setup({
      mailer: localMailer(server.port),
      recipients: () => ['ops@acc.example', 'cto@acc.example'],
    })
    clock.set(Date.UTC(2026, 10, 1, 9, 15))
    const { passcode, value } = await auth.passcodes.create(admin, 'acc', { name: 'Acme <CRM> & "co"', expiry: 20 })

    const report = await auth.notifyExpirations()
    expect(report.sent).toMatchObject([{ passcodeId: passcode.id, kind: 'expiring_soon', recorded: true }])
    expect(server.received).toHaveLength(1)
    const [mail] = server.received
    expect(mail!.mailFrom).toBe('no-reply@service.example')
    expect(mail!.rcptTo).toEqual(['ops@acc.example', 'cto@acc.example'])

    const parsed = parseMime(mail!.raw)
    expect(parsed.headers.get('subject')).toBe('Passcode "Acme <CRM> & "co"" expires in 20 days')
    expect(parsed.headers.get('to')).toBe('ops@acc.example, cto@acc.example')
    expect(parsed.headers.get('from')).toBe('Passcodes <no-reply@service.example>')
    const text = bodyOf(parsed, 'text/plain')
    const html = bodyOf(parsed, 'text/html')
    expect(text).toContain('"Acme <CRM> & "co""')
    expect(text).toContain(passcode.hint)
    expect(text).toContain('2026-11-21T09:15:00.000Z')
    expect(text).toContain('Saturday, 21 November 2026, 09:15 UTC')
    expect(html).toContain('Acme &lt;CRM&gt; &amp; &quot;co&quot;')
    expect(html).toContain('Saturday, 21 November 2026, 09:15 UTC')
    for (const content of [mail!.raw, text, html]) {
      expect(content).not.toContain(value)
      expect(content).not.toContain(value.slice(4, 20))
    }

    clock.set(passcode.expiresAt!.getTime() + DAY_MS)
    const expired = await auth.notifyExpirations()
    expect(expired.sent).toMatchObject([{ kind: 'expired' }])
    expect(parseMime(server.received[1]!.raw).headers.get('subject')).toBe('Passcode "Acme <CRM> & "co"" has expired')
  })

  it('logs in with the configured credentials', async () => {
    const login = { user: 'mailer-user', pass: 'correct-horse' }
    const server = await startSmtpServer({ login })
    cleanups.push(() => server.close())
    await localMailer(server.port, { auth: login }).send(message)
    expect(server.received).toMatchObject([{ user: 'mailer-user', rcptTo: ['ops@acc.example'] }])
  })

  it('fails with a MailerError that names no credential when the login is refused', async () => {
    const server = await startSmtpServer({ login: { user: 'mailer-user', pass: 'correct-horse' } })
    cleanups.push(() => server.close())
    const mailer = localMailer(server.port, { auth: { user: 'mailer-user', pass: 'wrong-battery-staple' } })
    const error = await mailer.send(message).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(MailerError)
    expect(error).toBeInstanceOf(CoreMailerError)
    expect((error as MailerError).code).toBe('ERR_MAILER_FAILED')
    expect((error as MailerError).message).toMatch(/refused the login \(SMTP 535\)/)
    expect((error as MailerError).message).not.toMatch(/wrong-battery|mailer-user/)
    expect(server.received).toEqual([])
  })

  it('verify() checks the connection', async () => {
    const server = await startSmtpServer()
    cleanups.push(() => server.close())
    await expect(localMailer(server.port).verify()).resolves.toBeUndefined()
    await expect(localMailer(await freePort()).verify()).rejects.toThrow(MailerError)
  })

  it('fails with a MailerError when the server refuses every recipient, and delivers to those it accepts', async () => {
    const server = await startSmtpServer({ refuse: ['gone@acc.example'] })
    cleanups.push(() => server.close())
    const mailer = localMailer(server.port)
    await expect(mailer.send({ ...message, to: ['gone@acc.example'] })).rejects.toThrow(/refused the sender or every recipient \(SMTP 550\)/)
    await mailer.send({ ...message, to: ['gone@acc.example', 'ops@acc.example'] })
    expect(server.received.map((mail) => mail.rcptTo)).toEqual([['ops@acc.example']])
  })

  it('fails with a MailerError when the server never greets (greeting timeout)', async () => {
    const silent = await startSilentServer()
    cleanups.push(() => silent.close())
    const mailer = localMailer(silent.port, { greetingTimeoutMs: 200 })
    await expect(mailer.send(message)).rejects.toThrow(new MailerError(`The SMTP server 127.0.0.1:${silent.port} did not answer in time`))
  })
})

describe('smtpMailer with the SMTP server down', () => {
  it('throws a MailerError, the notifier counts it as failed, and the next pass delivers once the server is up', async () => {
    const port = await freePort()
    const mailer = localMailer(port, { auth: { user: 'mailer-user', pass: 'hunter2-secret' } })
    await expect(mailer.send(message)).rejects.toThrow(new MailerError(`Could not connect to the SMTP server 127.0.0.1:${port}`))

    const { auth, events } = setup({ mailer: localMailer(port), recipients: () => ['ops@acc.example'] })
    const { passcode } = await auth.passcodes.create(admin, 'acc', { name: 'Down', expiry: 10 })
    const down = await auth.notifyExpirations()
    expect(down.sent).toEqual([])
    expect(down.failed).toMatchObject([
      { passcodeId: passcode.id, reason: 'ERR_MAILER_FAILED', message: `Could not connect to the SMTP server 127.0.0.1:${port}` },
    ])
    expect(events.filter((event) => event.type === 'notification.failed')).toHaveLength(1)
    expect(JSON.stringify(events)).not.toContain('hunter2')

    const server = await startSmtpServer({ port })
    cleanups.push(() => server.close())
    const up = await auth.notifyExpirations()
    expect(up.sent).toMatchObject([{ passcodeId: passcode.id, kind: 'expiring_soon' }])
    expect(server.received).toHaveLength(1)
    expect((await auth.notifyExpirations()).sent).toEqual([])
  })
})
