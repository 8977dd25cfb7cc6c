import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ATTRIBUTES, METRICS, SPANS } from '../../src/service/telemetry/names'
import { codeBlocks, typeCheckBlocks } from './markdown-blocks'

const guide = readFileSync(path.resolve(import.meta.dirname, '../../docs/observability.md'), 'utf8')

describe('docs/observability.md', () => {
  it('names every span, metric and attribute passcode-auth reports', () => {
    const names = [...Object.values(SPANS), ...Object.values(METRICS), ...Object.values(ATTRIBUTES)].map((name) => name.replace(/\.$/, '.<method>'))
    for (const name of names) expect(guide, name).toContain(`\`${name}\``)
  })

  it('has TypeScript that compiles against the package', async () => {
    const blocks = codeBlocks(guide)
      .filter((block) => block.lang === 'ts')
      .map((block) => ({ name: `docs/observability.md:${block.line}`, code: block.code }))
    expect(blocks.length).toBeGreaterThan(0)
    expect(await typeCheckBlocks('observability', blocks)).toBe('')
  }, 120_000)
})
