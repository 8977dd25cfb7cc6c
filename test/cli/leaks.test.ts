import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LEAKED_ENABLE_WARNING } from '../../src/dashboard/index'
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

  it('SPEC 5.45: `passcodes enable` of a leaked passcode asks first, saying its value is public; without a terminal it needs --yes', async () => {
    const created = await run(['passcodes', 'create', '--account', 'acc_3', '--name', 'Found', '--expiry', '30', '--json'])
    const { value } = JSON.parse(created.stdout) as { value: string }
    expect((await run(['leaks', 'report', '--source', 'chat'], `${value}\n`)).code).toBe(0)
    const status = async () =>
      (JSON.parse((await run(['passcodes', 'list', '--account', 'acc_3', '--json'])).stdout) as { passcodes: { status: string }[] }).passcodes[0]!
        .status
    const enable = ['passcodes', 'enable', 'Found', '--account', 'acc_3']
    const question = `Enable "Found" with its public value? ${LEAKED_ENABLE_WARNING}`

    // A script (no terminal): refused as a usage error, saying why and to pass --yes; nothing changed.
    const refused = await run(enable)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`error: ${question} Pass --yes to confirm it.`)
    expect(await status()).toBe('disabled')

    // A person on a terminal is asked; anything but yes changes nothing (exit 3).
    const terminal = { dataDir: folder.dir, stdinIsTTY: true, stderrIsTTY: true }
    const declined = await cli(enable, { ...terminal, stdin: 'n\n' })
    expect(declined.code).toBe(3)
    expect(declined.stderr).toContain(`${question} [y/N] `)
    expect(declined.stderr).toContain('Not confirmed; nothing changed.')
    expect(await status()).toBe('disabled')
    const confirmed = await cli(enable, { ...terminal, stdin: 'yes\n' })
    expect(confirmed.code).toBe(0)
    expect(confirmed.stdout).toContain('Its public value works again.')
    expect(await status()).not.toBe('disabled')
    expect(confirmed.stdout + confirmed.stderr).not.toContain(value)

    // --yes confirms without asking; a passcode that was not found in public is enabled as before.
    const again = await run(['passcodes', 'create', '--account', 'acc_3', '--name', 'Found again', '--expiry', '30', '--json'])
    expect((await run(['leaks', 'report', '--source', 'chat'], `${(JSON.parse(again.stdout) as { value: string }).value}\n`)).code).toBe(0)
    const flagged = await run(['passcodes', 'enable', 'Found again', '--account', 'acc_3', '--yes'])
    expect(flagged.code).toBe(0)
    expect(flagged.stderr).not.toContain('[y/N]')
    expect((await run(['passcodes', 'create', '--account', 'acc_3', '--name', 'Plain', '--expiry', '30'])).code).toBe(0)
    expect((await run(['passcodes', 'disable', 'Plain', '--account', 'acc_3'])).code).toBe(0)
    expect(await run(['passcodes', 'enable', 'Plain', '--account', 'acc_3'])).toMatchObject({ code: 0, stderr: '' })
  })

  it('refuses an empty stdin and a missing --source', async () => {
    expect((await run(['leaks', 'report', '--source', 'x'], '')).code).not.toBe(0)
    expect((await run(['leaks', 'report'], 'psc_x')).code).not.toBe(0)
  })
})
