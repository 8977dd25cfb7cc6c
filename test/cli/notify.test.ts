import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSmtpServer, type TestSmtpServer } from '../mailers/smtp-test-server'
import { cli, migratedDataFolder } from './cli-process'

/** `notify`: one notifier pass, printed by the console mailer or sent through SMTP. */

let folder: { dir: string; remove(): void }
let smtp: TestSmtpServer
const login = { user: 'mailer', pass: 'smtp-secret-4711' }
const run = (args: string[], env: Record<string, string> = {}) => cli(args, { dataDir: folder.dir, env })
const smtpEnv = (to: string) => ({
  PASSCODE_AUTH_SMTP_URL: `smtp://${login.user}:${login.pass}@127.0.0.1:${smtp.port}`,
  PASSCODE_AUTH_MAIL_FROM: 'Auth <auth@example.com>',
  PASSCODE_AUTH_NOTIFY_TO: to,
})
const create = async (name: string, expiry: string) => {
  const result = await run(['passcodes', 'create', '--account', 'acc_1', '--name', name, '--expiry', expiry, '--json'])
  expect(result.code).toBe(0)
  return (JSON.parse(result.stdout) as { value: string }).value
}

beforeAll(async () => {
  ;[folder, smtp] = await Promise.all([migratedDataFolder(), startSmtpServer({ login, refuse: ['nobody@example.com'] })])
}, 120_000)

afterAll(async () => {
  await smtp?.close()
  folder?.remove()
})

describe('notify', () => {
  it('prints the "expiring soon" email with the console mailer, once, never with the value', async () => {
    const value = await create('Soon', '10')
    const first = await run(['notify'])
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('--- email to operator@localhost ---')
    expect(first.stdout).toMatch(/^Subject: .*"Soon"/m)
    expect(first.stdout).toMatch(/^Notifier pass: 1 sent, 0 failed, 0 skipped\.$/m)
    expect(first.stdout).not.toContain(value)
    const again = await run(['notify', '--json'])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ sent: [], failed: [], skipped: [] })
  })

  it('sends through SMTP; a refused send exits 5 and is retried by the next pass', async () => {
    await create('Soon too', '5')
    const refused = await run(['notify'], smtpEnv('nobody@example.com'))
    expect(refused.code).toBe(5)
    expect(refused.stdout).toMatch(/^Notifier pass: 0 sent, 1 failed, 0 skipped\.$/m)
    expect(refused.stdout).toContain('ERR_MAILER_FAILED')
    expect(refused.stdout + refused.stderr).not.toContain(login.pass)

    const sent = await run(['notify', '--json'], smtpEnv('ops@example.com'))
    expect(sent.code).toBe(0)
    const report = JSON.parse(sent.stdout) as { sent: { name: string; to: string[] }[] }
    expect(report.sent.map(({ name, to }) => ({ name, to }))).toEqual([{ name: 'Soon too', to: ['ops@example.com'] }])
    expect(smtp.received.map((mail) => ({ from: mail.mailFrom, to: mail.rcptTo, user: mail.user }))).toEqual([
      { from: 'auth@example.com', to: ['ops@example.com'], user: 'mailer' },
    ])
  })

  it('names the missing or bad mail setting without echoing it, before opening the store', async () => {
    const missing = await run(['notify'], { PASSCODE_AUTH_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, PASSCODE_AUTH_NOTIFY_TO: 'ops@example.com' })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('PASSCODE_AUTH_MAIL_FROM (or --mail-from) is required with PASSCODE_AUTH_SMTP_URL')
    const bad = await run(['notify'], { PASSCODE_AUTH_SMTP_URL: `smpt://mailer:${login.pass}@mail.example.com` })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Invalid setting PASSCODE_AUTH_SMTP_URL (environment variable): must be an smtp:// or smtps:// URL')
    expect(bad.stderr).not.toContain(login.pass)
    const to = await run(['notify', '--notify-to', 'not-an-address'])
    expect(to.code).toBe(2)
    expect(to.stderr).toContain('Invalid setting --notify-to: must be email addresses separated by commas')
  })
})
