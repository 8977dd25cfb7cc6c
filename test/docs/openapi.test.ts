import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument, OPENAPI_FILE, openApiText } from '../../scripts/openapi'
import { connectResponseSchemas } from '../../src/protocol/connect-response-schemas'

/** docs/openapi.json: generated from the zod schemas of the answers, committed, and consistent with the server's answers. */

type Json = Record<string, any>
const document = buildOpenApiDocument() as Json
const operation = document.paths['/v1/connect'].get as Json

describe('docs/openapi.json', () => {
  it('is exactly what `npm run openapi` generates (run it after changing the schemas)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiText())
  })

  it('is OpenAPI 3.1 with one response per status the client knows', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(operation.responses).sort()).toEqual(Object.keys(connectResponseSchemas).sort())
    expect(operation.security).toEqual([{ accountId: [], passcode: [] }])
    expect(document.components.securitySchemes.accountId).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Service-Account-Id' })
    expect(document.components.securitySchemes.passcode).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Service-Passcode' })
  })

  it('documents HEAD as GET without bodies, and the 405 with Allow: GET, HEAD', () => {
    const head = document.paths['/v1/connect'].head as Json
    expect(Object.keys(head.responses).sort()).toEqual(Object.keys(operation.responses).sort())
    for (const response of Object.values(head.responses as Json)) expect(response.content).toBeUndefined()
    expect(head.parameters).toEqual(operation.parameters)
    expect(document.paths['/v1/connect'].options.responses['405']).toEqual({ $ref: '#/components/responses/MethodNotAllowed' })
    const notAllowed = document.components.responses.MethodNotAllowed as Json
    expect(document.components.headers.Allow.schema.const).toBe('GET, HEAD')
    expect(notAllowed.headers.Allow).toEqual({ $ref: '#/components/headers/Allow' })
    expect(notAllowed.content['application/json'].examples.methodNotAllowed.value).toEqual({ status: 'fail', error: 'Method Not Allowed', code: 405 })
  })

  it('types both credential headers and the partner as parameters, as well as security schemes', () => {
    const parameters = (operation.parameters as Json[]).map(({ $ref }) => document.components.parameters[($ref as string).split('/').pop()!] as Json)
    expect(parameters.map(({ name, in: where, required }) => [name, where, required])).toEqual([
      ['partner', 'query', true],
      ['X-Service-Account-Id', 'header', true],
      ['X-Service-Passcode', 'header', true],
    ])
    expect(parameters[1]!.schema).toEqual({ type: 'string', minLength: 1, maxLength: 256, pattern: '^[\\x21-\\x7E]+$' })
  })

  it('has only references that resolve', () => {
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/([^/]+)\/([^"]+)"/g)].map(
      (match) => [match[1]!, match[2]!] as const,
    )
    expect(references.length).toBeGreaterThan(0)
    for (const [kind, name] of references) expect(document.components[kind][name], `${kind}/${name}`).toBeDefined()
  })

  it("gives examples, taken from the server's table of answers, that the client's schemas accept", () => {
    for (const [status, response] of Object.entries(operation.responses as Json)) {
      const examples = Object.values(response.content['application/json'].examples as Json)
      expect(examples.length, status).toBeGreaterThan(0)
      for (const { value } of examples) {
        const schema = connectResponseSchemas[Number(status) as keyof typeof connectResponseSchemas]
        expect(schema.safeParse(value).success, `${status} ${JSON.stringify(value)}`).toBe(true)
        expect(value.code ?? 200).toBe(Number(status))
      }
    }
  })

  it('lets clients accept fields added later (no additionalProperties: false)', () => {
    expect(JSON.stringify(document)).not.toContain('"additionalProperties":false')
  })
})
