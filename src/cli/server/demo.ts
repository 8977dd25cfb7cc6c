import { existsSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DuplicateNameError, passcodeNameKey, type Actor } from '../../index'
import type { Runtime } from '../runtime'

/** What the first start on an empty data folder creates. */
export const DEMO = Object.freeze({
  accountId: 'acc_demo',
  partner: 'demo-partner',
  passcodeName: 'Demo passcode',
  expiryDays: 90,
})

/** The demo's passcode value, to be shown once. */
export interface DemoSeed {
  readonly accountId: string
  readonly partner: string
  readonly passcodeName: string
  readonly value: string
}

/**
 * Whether the demo is still owed to this data folder. A new folder owes it until a
 * start has shown its curl line: a first start that fails to listen (port in use)
 * must not cost the newcomer the demo.
 */
export function demoOwed(runtime: Runtime, wanted: boolean): boolean {
  if (runtime.storage !== 'embedded') return false
  const marker = path.join(runtime.location, 'demo-pending')
  if (runtime.fresh && wanted) writeFileSync(marker, '', { mode: 0o600 })
  if (!wanted && existsSync(marker)) unlinkSync(marker)
  return wanted && existsSync(marker)
}

/**
 * Seeds a new data folder so that the server can be tried at once: a demo account
 * with one passcode and a whitelisted demo partner. A demo passcode left by an
 * interrupted earlier seed is replaced: its value was never shown.
 */
export async function seedDemo(runtime: Runtime, actor: Actor): Promise<DemoSeed> {
  const { auth } = runtime
  await runtime.partners.add(DEMO.partner)
  const input = { name: DEMO.passcodeName, expiry: DEMO.expiryDays }
  const { value } = await auth.passcodes.create(actor, DEMO.accountId, input).catch(async (error: unknown) => {
    if (!(error instanceof DuplicateNameError)) throw error
    const stale = (await auth.passcodes.list(actor, DEMO.accountId)).find((p) => passcodeNameKey(p.name) === passcodeNameKey(DEMO.passcodeName))
    if (stale !== undefined) await auth.passcodes.delete(actor, DEMO.accountId, stale.id)
    return auth.passcodes.create(actor, DEMO.accountId, input)
  })
  const marker = path.join(runtime.location, 'demo-pending')
  if (existsSync(marker)) unlinkSync(marker)
  return { accountId: DEMO.accountId, partner: DEMO.partner, passcodeName: DEMO.passcodeName, value }
}

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

/** A `curl` command line for `GET /v1/connect`, ready to paste into a POSIX shell. */
export function connectCurlLine(baseUrl: string, seed: Pick<DemoSeed, 'accountId' | 'partner' | 'value'>): string {
  const url = `${baseUrl}/v1/connect?partner=${encodeURIComponent(seed.partner)}`
  return [
    'curl -i',
    `-H ${shellQuote(`X-Service-Account-Id: ${seed.accountId}`)}`,
    `-H ${shellQuote(`X-Service-Passcode: ${seed.value}`)}`,
    shellQuote(url),
  ].join(' ')
}
