import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, migratedDataFolder } from './cli-process'

/** `leaks report`: values from stdin, never from arguments. */

let folder: { dir: string; remove(): void }
const run = (args: string[], stdin?: string) => cli(args, { dataDir: folder.dir, ...(stdin !== undefined && { stdin }) })

beforeAll(async () => {
  folder = await migratedDataFolder()
}, 120_000)

afterAll(() => folder?.remove())

describe('leaks report', () => {
  it('disables a live value read from stdin, mails once, never prints the value; a second report changes nothing', async () => {
    const created = await run(['passcodes', 'create', '--account', 'acc_1', '--name', 'Leaky', '--expiry', '30', '--json'])
    const { value } = JSON.parse(created.stdout) as { value: string }
    const input = `${value}\nnot-a-passcode\n\n`
    const first = await run(['leaks', 'report', '--source', 'support ticket 123', '--json'], input)
    expect(first.code).toBe(0)
    const answer = JSON.parse(first.stdout.slice(first.stdout.lastIndexOf('\n{') + 1)) as {
      reported: number
      live: number
      results: { hint: string; label: string }[]
    }
    expect(answer).toMatchObject({ reported: 2, live: 1 })
    expect(answer.results[0]).toEqual({ hint: `psc_…${value.slice(-4)}`, label: 'true_positive' })
    expect(first.stdout + first.stderr).not.toContain(value)
    expect(first.stdout + first.stderr).toContain('support ticket 123')

    const list = await run(['passcodes', 'list', '--account', 'acc_1', '--json'])
    expect(list.stdout).toContain('"disabled"')

    const again = await run(['leaks', 'report', '--source', 'support ticket 123'], input)
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('1 live')
    expect(again.stdout + again.stderr).not.toContain('--- email to')
    expect(again.stdout + again.stderr).not.toContain(value)
  })

  it('refuses an empty stdin and a missing --source', async () => {
    expect((await run(['leaks', 'report', '--source', 'x'], '')).code).not.toBe(0)
    expect((await run(['leaks', 'report'], 'psc_x')).code).not.toBe(0)
  })
})
