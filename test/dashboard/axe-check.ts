import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Violation {
  readonly id: string
  readonly help: string
  readonly nodes: readonly { readonly target: readonly string[] }[]
}

/**
 * axe-core's violations on the page as it is now: rule, help and where, for a readable
 * failure. axe is evaluated through the DevTools protocol, which the page's CSP does
 * not govern, so the page keeps its strict CSP while tested. It is evaluated once per
 * document: a later check of the same document (a form opened, a dialog shown) runs
 * the axe already there instead of compiling its half a megabyte again.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe
    return (await axe.run(document, { resultTypes: ['violations'] })).violations
  })
  return found.map((violation) => `${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)
}
