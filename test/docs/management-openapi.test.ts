import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildManagementOpenApi, MANAGEMENT_OPENAPI_FILE, managementOpenApiText, routerOperations } from '../../scripts/management-openapi'
import { SESSION_COOKIE } from '../../src/cli/server/dashboard-logins'
import { managementErrorCodesOf } from '../../src/protocol/management-errors'

type Json = Record<string, any>
const document = buildManagementOpenApi() as Json
const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((key) => key !== 'parameters')
    .map((method) => `${method.toUpperCase()} ${path}`),
)

describe('docs/management-openapi.json', () => {
  it('is exactly what `npm run openapi` generates', () => {
    expect(readFileSync(MANAGEMENT_OPENAPI_FILE, 'utf8')).toBe(managementOpenApiText())
  })

  it('describes every route the router serves, and no other', () => {
    const served = routerOperations()
    expect(served.filter((operation) => !documented.includes(operation))).toEqual([])
    expect(documented.filter((operation) => !served.includes(operation))).toEqual([])
  })

  it('has only references that resolve, and an error response for each status it names', () => {
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]!)
    for (const name of references) expect(document.components.schemas[name], name).toBeDefined()
    for (const item of Object.values(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (method === 'parameters') continue
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) >= 400) expect(response.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/Error${status}` })
          if (Number(status) >= 400) expect(response.description).toMatch(/Codes: ERR_/)
        }
      }
    }
  })

  it("gives each status's error body the codes of that status only, from the one error table", () => {
    const errors = Object.keys(document.components.schemas as Json).filter((name) => name.startsWith('Error'))
    expect(errors.length).toBeGreaterThanOrEqual(10)
    for (const name of errors) {
      const status = Number(name.slice('Error'.length))
      const schema = document.components.schemas[name] as Json
      expect(schema.properties.error.properties.code.enum, name).toEqual(managementErrorCodesOf(status))
      expect(Object.keys(schema.properties.error.properties as Json).includes('field'), name).toBe(status === 400)
    }
  })

  it("names the reference server's session cookie, and says a host uses its own", () => {
    const scheme = document.components.securitySchemes.hostSession as Json
    expect(scheme).toMatchObject({ type: 'apiKey', in: 'cookie', name: SESSION_COOKIE })
    expect(scheme.description).toMatch(/host that mounts the API uses its own/)
  })
})
