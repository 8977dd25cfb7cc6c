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

  it('rotates a leaked passcode with no overlap: --overlap may be left out (0), any other is refused with exit 3 and the reason (SPEC 5.45)', async () => {
    const created = await run(['passcodes', 'create', '--account', 'acc_2', '--name', 'Public', '--expiry', '30', '--json'])
    const { value } = JSON.parse(created.stdout) as { value: string }
    expect((await run(['leaks', 'report', '--source', 'chat'], `${value}\n`)).code).toBe(0)

    const refused = await run(['passcodes', 'rotate', 'Public', '--account', 'acc_2', '--overlap', '60'])
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain('Invalid overlapMinutes: must be 0: this passcode was found in public, and a leaked value gets no overlap')
    const rotated = await run(['passcodes', 'rotate', 'Public', '--account', 'acc_2'])
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toContain('The old value has stopped working.')
    expect(rotated.stdout).not.toContain(value)
    // The value is no longer the leaked one: the next rotation needs --overlap again.
    const missing = await run(['passcodes', 'rotate', 'Public', '--account', 'acc_2'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--overlap')
  })

  it('refuses an empty stdin and a missing --source', async () => {
    expect((await run(['leaks', 'report', '--source', 'x'], '')).code).not.toBe(0)
    expect((await run(['leaks', 'report'], 'psc_x')).code).not.toBe(0)
  })
})
