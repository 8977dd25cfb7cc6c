import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ASSETS_MODULE, assetsModuleText } from '../../scripts/dashboard-assets'

describe('src/http/dashboard/assets.ts', () => {
  it('is exactly what `npm run dashboard:assets` generates from src/dashboard/client/ (run it after editing those files)', () => {
    expect(readFileSync(ASSETS_MODULE, 'utf8')).toBe(assetsModuleText())
  })

  it('puts no HTML into the page from data: the script never uses innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    const script = readFileSync(new URL('../../src/dashboard/client/dashboard.js', import.meta.url), 'utf8')
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })
})
