import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import {
  connectFailureBodySchema,
  connectResponseSchemas,
  connectSuccessBodySchema,
  invalidCredentialsBodySchema,
  partnerNotWhitelistedBodySchema,
} from '../../src/protocol/connect-response-schemas'
import { CONNECT_SUCCESS, FAILURES, partnerNotWhitelisted } from '../../src/protocol/outcomes'

describe('response schemas', () => {
  it('accept every answer of the server’s outcome table under its status', () => {
    const answers = [CONNECT_SUCCESS, partnerNotWhitelisted('Acme'), ...Object.values(FAILURES)]
    for (const { statusCode, body } of answers) {
      // Not a /v1/connect answer to a GET: 405 (a method other than GET); the client reports it as unexpected.
      if (statusCode === 405) continue
      const schema = connectResponseSchemas[statusCode as keyof typeof connectResponseSchemas]
      expect(schema, `status ${statusCode}`).toBeDefined()
      expect(schema.safeParse(body).success, JSON.stringify(body)).toBe(true)
    }
  })

  it('tell the cases apart', () => {
    expect(connectSuccessBodySchema.safeParse({ status: 'fail', error: 'x', code: 400 }).success).toBe(false)
    expect(invalidCredentialsBodySchema.safeParse({ status: 'fail', error: 'Missing partner', code: 400 }).success).toBe(false)
    expect(partnerNotWhitelistedBodySchema.safeParse({ status: 'fail', error: 'Partner not whitelisted', code: 403 }).success).toBe(false)
    expect(connectFailureBodySchema.safeParse({ status: 'fail', error: 'Anything', code: 418 }).success).toBe(true)
  })

  it('convert to JSON Schema for an OpenAPI document', () => {
    const success = z.toJSONSchema(connectSuccessBodySchema)
    expect(success).toMatchObject({
      type: 'object',
      properties: { status: { const: 'success' }, message: { type: 'string' } },
      required: ['status', 'message'],
    })
    for (const schema of Object.values(connectResponseSchemas)) expect(() => z.toJSONSchema(schema)).not.toThrow()
    expect(z.toJSONSchema(partnerNotWhitelistedBodySchema)).toMatchObject({
      properties: { error: { pattern: '^Partner not whitelisted .*' } },
    })
  })
})
