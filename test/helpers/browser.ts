import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/**
 * A real browser for tests: the system's Chromium (Debian's packages, installed by
 * `.ci/run`), driven by playwright-core, which downloads no browser of its own.
 * {@link browserAvailability} decides synchronously, at test collection: without
 * Chromium a suite is skipped with the reason in its title, except under `CI=true`,
 * where it runs and fails (a CI run must not pass by skipping its browser tests).
 *
 * ```ts
 * const browser = browserAvailability()
 * describe.skipIf(browser.skip)(browser.title('Dashboard in Chromium'), () => {
 *   let chromium: Browser
 *   beforeAll(async () => { chromium = await launchBrowser() })
 *   afterAll(() => chromium?.close())
 * })
 * ```
 */

/**
 * Chromium's headless shell (Debian's `chromium-headless-shell`): the same Blink and V8
 * as the browser, without the browser's user interface, and what Playwright itself runs
 * for headless tests. Launching it and rendering pages cost well under half the CPU of
 * the full browser in headless mode: the four test files that launch one took 33
 * CPU-s of the whole machine against about 78.
 */
const headlessShell = '/usr/lib/chromium/chromium-headless-shell'

/**
 * Where Chromium is looked for: `CHROMIUM_PATH` when set, otherwise the headless shell
 * when installed, otherwise the full browser (`apt-get install chromium`).
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? (existsSync(headlessShell) ? headlessShell : '/usr/bin/chromium')

/** Whether browser tests run here, and the suite title that says why not. */
export interface BrowserAvailability {
  /** True only when Chromium is missing and this is not CI. */
  readonly skip: boolean
  /** Why Chromium is unusable, when it is. */
  readonly reason?: string
  /** The suite title, with "(skipped: …)" when skipped. */
  title(name: string): string
}

/** Decides once whether browser suites run, skip (locally) or fail (CI). */
export function browserAvailability(): BrowserAvailability {
  const missing = existsSync(chromiumPath)
    ? undefined
    : `no Chromium at ${chromiumPath} (apt-get install chromium-headless-shell or chromium, or set CHROMIUM_PATH)`
  const skip = missing !== undefined && process.env.CI !== 'true'
  return {
    skip,
    ...(missing === undefined ? {} : { reason: missing }),
    title: (name) => (skip ? `${name} (skipped: ${missing})` : name),
  }
}

/**
 * Flags for a quiet, self-contained headless Chromium: no GPU, no QUIC, no first-run
 * UI, no background traffic to Google (updates, sync, component downloads). Playwright
 * gives every launch a fresh temporary `--user-data-dir` and removes it on close.
 * `--no-sandbox` because CI runs as root, where Chromium's sandbox refuses to start.
 */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const

/**
 * Launches headless Chromium. Call from `beforeAll`, close in `afterAll`. Each
 * `browser.newContext()` is an isolated profile (cookies, storage), so one browser
 * serves several users of a test.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium unavailable: no executable at ${chromiumPath}; CI installs it with apt-get install chromium-headless-shell`)
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [...chromiumFlags],
    timeout: 60_000,
  })
}
