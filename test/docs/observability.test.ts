import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ATTRIBUTES, METRICS, SPANS } from '../../src/service/telemetry/names'

const guide = readFileSync(path.resolve(import.meta.dirname, '../../docs/observability.md'), 'utf8')

// Its TypeScript blocks compile against the package: test/types/type-tests.test.ts.
describe('docs/observability.md', () => {
  it('names every span, metric and attribute passcode-auth reports', () => {
    const names = [...Object.values(SPANS), ...Object.values(METRICS), ...Object.values(ATTRIBUTES)].map((name) => name.replace(/\.$/, '.<method>'))
    for (const name of names) expect(guide, name).toContain(`\`${name}\``)
  })
})
