import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { PasscodeAuthError } from '../../src/index'
import { PasscodeRefusedError } from '../../src/http/refusal-error'
import { refuse } from '../../src/service/auth-outcome'

describe('PasscodeRefusedError', () => {
  const error = new PasscodeRefusedError(refuse('wrong_account'))

  it('carries what passcode-auth would have sent', () => {
    expect(error).toBeInstanceOf(PasscodeAuthError)
    expect(error.code).toBe('ERR_PASSCODE_REFUSED')
    expect(error.name).toBe('PasscodeRefusedError')
    expect(error.statusCode).toBe(400)
    expect(error.status).toBe(400)
    expect(error.expose).toBe(true)
    expect(error.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
    expect(error.body).toEqual({ status: 'fail', error: 'Invalid Credentials', code: 400 })
    expect(error.message).toBe('Invalid Credentials')
  })

  it('keeps the internal reason for logs but out of anything a handler might send', () => {
    expect(error.reason).toBe('wrong_account')
    expect(JSON.stringify(error)).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
    expect(Object.keys(error)).not.toContain('reason')
    expect(JSON.stringify({ ...error })).not.toContain('wrong_account')
    expect(error.message).not.toContain('wrong_account')
  })

  it('gives the exact refusal as a Response, a new one per call, the reason left out', async () => {
    const response = error.getResponse()
    expect(response.status).toBe(400)
    expect(Object.fromEntries(response.headers)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': '58',
    })
    expect(await response.text()).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
    expect(error.getResponse()).not.toBe(response)
    const limited = new PasscodeRefusedError(refuse('rate_limited'))
    expect(limited.getResponse().status).toBe(limited.statusCode)
  })

  it('shows no secret in inspect output (it holds none)', () => {
    expect(inspect(error)).not.toMatch(/psc_/)
  })
})
