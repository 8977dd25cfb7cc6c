import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, migratedDataFolder } from './cli-process'

/**
 * SPEC 5.53 `webhooks …` on a data folder, in this process: an endpoint registered with
 * its secret printed once, listed without it, edited, tested, its deliveries listed and
 * replayed, its secret rotated, a refused address, and the audit records. The endpoint
 * is a public address that nothing here connects to: the one pass runs after it is
 * disabled, which fails its deliveries without sending them.
 */

let folder: { dir: string; remove(): void }
const run = (...args: string[]) => cli(args, { dataDir: folder.dir })
const URL = 'https://93.184.215.14/hooks/passcodes'

beforeAll(async () => {
  folder = await migratedDataFolder()
}, 120_000)

afterAll(() => folder?.remove())

/**
 * Each command opens the data folder's database in this process: a fraction of a second
 * on an idle machine, several seconds on a loaded one (two busy loops beside the suite
 * made the first case pass 30 s). A bound on the machine, not on the command.
 */
const CASE_BOUND_MS = 120_000

describe('SPEC 5.53 passcode-auth webhooks', () => {
  it(
    'registers, lists, edits, tests, replays, rotates and deletes an endpoint; the secret is printed by create and rotate only',
    async () => {
      const created = await run('webhooks', 'create', '--account', 'acc_1', '--url', URL, '--events', 'passcode.leaked,passcode.rotated', '--json')
      expect(created.code).toBe(0)
      const { endpoint, secret } = JSON.parse(created.stdout) as { endpoint: { id: string; events: string[] }; secret: string }
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(endpoint.events).toEqual(['passcode.rotated', 'passcode.leaked'])
      const id = endpoint.id

      const listed = await run('webhooks', 'list', '--account', 'acc_1')
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain(id)
      expect(listed.stdout).toContain('passcode.rotated, passcode.leaked')
      expect(listed.stdout).not.toContain(secret)

      const tested = await run('webhooks', 'test', id, '--account', 'acc_1', '--json')
      expect(tested.code).toBe(0)
      const { delivery } = JSON.parse(tested.stdout) as { delivery: { id: string; eventType: string; status: string } }
      expect(delivery).toMatchObject({ eventType: 'webhook.test', status: 'pending' })

      expect((await run('webhooks', 'edit', id, '--account', 'acc_1', '--disable')).code).toBe(0)
      const pass = await run('webhooks', 'dispatch', '--json')
      expect(pass.code).toBe(0)
      expect(JSON.parse(pass.stdout)).toMatchObject({ succeeded: 0, failed: 1 })
      const deliveries = await run('webhooks', 'deliveries', '--account', 'acc_1', '--endpoint', id)
      expect(deliveries.stdout).toMatch(new RegExp(`${delivery.id} +${id} +webhook\\.test +failed`))
      const replayed = await run('webhooks', 'replay', delivery.id, '--account', 'acc_1', '--json')
      expect(replayed.code).toBe(0)
      expect(JSON.parse(replayed.stdout)).toMatchObject({ delivery: { id: delivery.id, status: 'pending' } })

      const rotated = await run('webhooks', 'rotate-secret', id, '--account', 'acc_1')
      expect(rotated.code).toBe(0)
      const next = /^ {2}(whsec_\S+)$/m.exec(rotated.stdout)?.[1]
      expect(next).toBeDefined()
      expect(next).not.toBe(secret)
      expect(rotated.stdout).toMatch(/The old secret also signs until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./)

      expect((await run('webhooks', 'delete', id, '--account', 'acc_1')).code).toBe(0)
      expect((await run('webhooks', 'delete', id, '--account', 'acc_1')).code).toBe(4)
      const audit = await run('audit', 'list', '--account', 'acc_1')
      for (const action of ['webhook.endpoint_created', 'webhook.endpoint_updated', 'webhook.secret_rotated', 'webhook.endpoint_deleted'])
        expect(audit.stdout).toContain(`${action} webhook endpoint ${id}`)
      expect(audit.stdout).not.toContain(secret)
      expect(audit.stdout).not.toContain(next)
    },
    CASE_BOUND_MS,
  )

  it(
    'registers a disabled endpoint with --disabled, which a later edit enables',
    async () => {
      const created = await run('webhooks', 'create', '--account', 'acc_2', '--url', URL, '--events', 'all', '--disabled', '--json')
      expect(created.code).toBe(0)
      const { endpoint } = JSON.parse(created.stdout) as { endpoint: { id: string; enabled: boolean; disabledReason: string | null } }
      expect(endpoint).toMatchObject({ enabled: false, disabledReason: null })
      const listed = await run('webhooks', 'list', '--account', 'acc_2')
      expect(listed.stdout).toMatch(new RegExp(`${endpoint.id} +${URL.replaceAll('.', '\\.')} +all +disabled`))
      const enabled = await run('webhooks', 'edit', endpoint.id, '--account', 'acc_2', '--enable', '--json')
      expect(JSON.parse(enabled.stdout)).toMatchObject({ endpoint: { id: endpoint.id, enabled: true } })
    },
    CASE_BOUND_MS,
  )

  it(
    'refuses a loopback or metadata address, an unknown event type, members and a bad --limit',
    async () => {
      for (const url of ['http://127.0.0.1:8080/hooks', 'http://169.254.169.254/latest']) {
        const refused = await run('webhooks', 'create', '--account', 'acc_1', '--url', url, '--events', 'all')
        expect(refused.code).toBe(3)
        expect(refused.stderr).toMatch(/url.*must not resolve to a loopback, private, link-local, reserved or metadata address/)
      }
      expect((await run('webhooks', 'create', '--account', 'acc_1', '--url', URL, '--events', 'passcode.exploded')).code).toBe(3)
      expect((await run('webhooks', 'list', '--account', 'acc_1', '--role', 'member')).code).toBe(3)
      expect((await run('webhooks', 'deliveries', '--account', 'acc_1', '--limit', 'ten')).code).toBe(2)
      expect((await run('webhooks', 'edit', 'ep_1', '--account', 'acc_1')).code).toBe(2)
    },
    CASE_BOUND_MS,
  )
})
