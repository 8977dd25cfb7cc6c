import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { InvalidOptionsError, startExpiryNotifier, type AuditEvent, type NotificationReport } from '../../src/index'
import { memoryMailer } from '../../src/memory'
import { temporaryFolder } from '../helpers/cli-command'
import { bundleForNode } from '../helpers/node-bundle'
import { admin, setup } from '../helpers/service'
import { everyone } from './notify-fixtures'

const emptyReport = (): NotificationReport => ({ startedAt: new Date(0), sent: [], failed: [], skipped: [] })

/** Resolves when `predicate` holds, polling; the generous limit only guards against a hang. */
async function until(predicate: () => boolean, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('startExpiryNotifier', () => {
  it('runs passes on a schedule and delivers what is due', async () => {
    const mailer = memoryMailer()
    const { auth } = setup({ mailer, recipients: everyone })
    const reports: NotificationReport[] = []
    const notifier = startExpiryNotifier(auth, { intervalMs: 10, onReport: (report) => reports.push(report) })
    await auth.passcodes.create(admin, 'acc', { name: 'Scheduled', expiry: 10 })
    await until(() => mailer.messages.length === 1 && reports.length >= 3)
    await notifier.stop()
    expect(mailer.messages).toHaveLength(1)
  })

  it('never overlaps its own passes, even when a pass outlasts the interval', async () => {
    let active = 0
    let maxActive = 0
    let passes = 0
    const slow = {
      async notifyExpirations() {
        active += 1
        maxActive = Math.max(maxActive, active)
        await new Promise((resolve) => setTimeout(resolve, 30))
        active -= 1
        passes += 1
        return emptyReport()
      },
    }
    const notifier = startExpiryNotifier(slow, { intervalMs: 1 })
    await until(() => passes >= 5)
    await notifier.stop()
    expect(maxActive).toBe(1)
  })

  it('stop() resolves only after the running pass has finished, and no pass starts afterwards', async () => {
    let finishSend: (() => void) | undefined
    const mailer = {
      send: () =>
        new Promise<void>((resolve) => {
          finishSend = resolve
        }),
    }
    const { auth } = setup({ mailer, recipients: everyone })
    await auth.passcodes.create(admin, 'acc', { name: 'Pending', expiry: 10 })
    const reports: NotificationReport[] = []
    const notifier = startExpiryNotifier(auth, { intervalMs: 5, onReport: (report) => reports.push(report) })
    await until(() => finishSend !== undefined)
    let stopped = false
    const stopping = notifier.stop().then(() => {
      stopped = true
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(stopped).toBe(false)
    finishSend!()
    await stopping
    expect(reports).toHaveLength(1)
    expect(reports[0]?.sent).toHaveLength(1)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(reports).toHaveLength(1)
    await notifier.stop()
  })

  it('reports a failing pass through onEvent (notifier.failed) and onError, and keeps running', async () => {
    const { auth, events } = setup({ recipients: everyone })
    const errors: unknown[] = []
    const notifier = startExpiryNotifier(auth, { intervalMs: 5, onError: (error) => errors.push(error) })
    await until(() => errors.length >= 2)
    await notifier.stop()
    const failures = events.filter((event): event is Extract<AuditEvent, { type: 'notifier.failed' }> => event.type === 'notifier.failed')
    expect(failures.length).toBeGreaterThanOrEqual(2)
    expect(failures[0]?.error).toMatch(/needs a mailer/)
  })

  it('survives callbacks that throw', async () => {
    let passes = 0
    const notifier = startExpiryNotifier(
      {
        async notifyExpirations() {
          passes += 1
          if (passes % 2 === 0) throw new Error('pass failed')
          return emptyReport()
        },
      },
      {
        intervalMs: 1,
        onReport: () => {
          throw new Error('host bug')
        },
        onError: () => {
          throw new Error('host bug')
        },
      },
    )
    await until(() => passes >= 4)
    await notifier.stop()
    expect(passes).toBeGreaterThanOrEqual(4)
  })

  it('waits intervalMs before the first pass with runImmediately: false', async () => {
    let passes = 0
    const notifier = startExpiryNotifier(
      {
        async notifyExpirations() {
          passes += 1
          return emptyReport()
        },
      },
      { intervalMs: 60_000, runImmediately: false },
    )
    await new Promise((resolve) => setTimeout(resolve, 30))
    await notifier.stop()
    expect(passes).toBe(0)
  })

  it('validates its options', () => {
    const { auth } = setup()
    for (const intervalMs of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => startExpiryNotifier(auth, { intervalMs })).toThrow(InvalidOptionsError)
    }
    expect(() => startExpiryNotifier({} as never)).toThrow(/createPasscodeAuth/)
  })

  it('does not keep the process alive (timers are unref’d)', async () => {
    // A program of its own, bundled for plain node as README blocks are (node-bundle.ts).
    const folder = temporaryFolder('passcode-auth-notifier-')
    let result: { code: number | null; stdout: string }
    try {
      const program = path.join(folder.dir, 'program.ts')
      writeFileSync(
        program,
        `import { createPasscodeAuth, startExpiryNotifier } from 'passcode-auth'
        import { memoryStore, memoryMailer } from 'passcode-auth/memory'
        const auth = createPasscodeAuth({ store: memoryStore(), mailer: memoryMailer(), recipients: () => ['a@b.example'] })
        startExpiryNotifier(auth, { intervalMs: 3_600_000 })
        startExpiryNotifier(auth, { intervalMs: 3_600_000, runImmediately: false })
        console.log('started')
      `,
      )
      const bundles = await bundleForNode({ program })
      result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        execFile(process.execPath, [bundles.file('program')], { timeout: 60_000 }, (error, stdout) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
        )
      }).finally(() => bundles.remove())
    } finally {
      folder.remove()
    }
    // Killed by the 60 s timeout it would have a non-zero code: it exited on its own.
    expect(result).toEqual({ code: 0, stdout: 'started\n' })
  })
})
