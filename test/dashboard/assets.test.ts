import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ASSETS_MODULE, assetsModuleText } from '../../scripts/dashboard-assets'
import { isVisibleAscii, MAX_IDENTIFIER_LENGTH } from '../../src/core/rules'
import { parseInput } from '../../src/service/input'

const script = readFileSync(new URL('../../src/dashboard/client/dashboard.js', import.meta.url), 'utf8')

describe('src/http/dashboard/assets.ts', () => {
  it('is exactly what `npm run dashboard:assets` generates from src/dashboard/client/ (run it after editing those files)', () => {
    expect(readFileSync(ASSETS_MODULE, 'utf8')).toBe(assetsModuleText())
  })

  it('puts no HTML into the page from data: the script never uses innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })

  it("checks a User ID before sending as the service does, with the API's own message", () => {
    const rule = new RegExp(/const USER_ID = \/(.+)\/\n/.exec(script)![1]!)
    const message = /const USER_ID_MESSAGE = '([^']+)'/.exec(script)![1]
    let refusal: unknown
    try {
      parseInput('userId', 'userId', '')
    } catch (error) {
      refusal = error
    }
    expect(refusal).toMatchObject({ field: 'userId', message })
    for (const id of ['', ' ', 'u_1', 'a b', 'é', '~!', 'x'.repeat(MAX_IDENTIFIER_LENGTH), 'x'.repeat(MAX_IDENTIFIER_LENGTH + 1), '\u007f']) {
      expect(rule.test(id), JSON.stringify(id)).toBe(isVisibleAscii(id))
    }
  })
})
