import { describe, expect, it } from 'vitest'
import {
  AlreadyGrantedError,
  CapReachedError,
  ConfigurationError,
  DuplicateNameError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  ReactivationRefusedError,
  StorageError,
  StorageTimeoutError,
} from '../../src/index'
import { MANAGEMENT_ERROR_STATUS, managementErrorAnswer } from '../../src/protocol/management-errors'

describe('SPEC 5.29: the one table from management error to HTTP status', () => {
  it('maps each domain error to its status and keeps its code and message', () => {
    const cases: [Error, number][] = [
      [new InvalidInputError('expiry', 'must be at least 1 day'), 400],
      [new ForbiddenError('no'), 403],
      [new NotFoundError('gone'), 404],
      [new DuplicateNameError('Acme'), 409],
      [new CapReachedError(100), 409],
      [new AlreadyGrantedError(), 409],
      [new ReactivationRefusedError(), 409],
      [new ConfigurationError('User passcodes need encryptionKeys'), 500],
      [new StorageError({ cause: new Error('ECONNREFUSED 10.0.0.5:5432') }), 503],
      [new StorageTimeoutError(2000), 504],
    ]
    for (const [error, status] of cases) {
      const answer = managementErrorAnswer(error)
      expect(answer.statusCode, error.name).toBe(status)
      expect(answer.body.error.message).toBe(error.message)
      expect(JSON.stringify(answer.body)).not.toContain('ECONNREFUSED')
    }
  })

  it('names the field only for invalid input, renamed to the API name when the route says so', () => {
    expect(managementErrorAnswer(new InvalidInputError('validity.days', 'must be at most 365 days')).body.error).toEqual({
      code: 'ERR_INVALID_INPUT',
      message: 'Invalid validity.days: must be at most 365 days',
      field: 'validity.days',
    })
    expect(
      managementErrorAnswer(new InvalidInputError('accepted', 'must be "account", "user" or "both"'), { accepted: 'acceptedPasscodes' }).body.error,
    ).toEqual({
      code: 'ERR_INVALID_INPUT',
      message: 'Invalid acceptedPasscodes: must be "account", "user" or "both"',
      field: 'acceptedPasscodes',
    })
    // A renamed first name keeps the rest of the path; one renamed to '' is dropped (a service's options are the query's parameters).
    expect(managementErrorAnswer(new InvalidInputError('options.tags.1', 'must not be blank'), { options: '' }).body.error).toEqual({
      code: 'ERR_INVALID_INPUT',
      message: 'Invalid tags.1: must not be blank',
      field: 'tags.1',
    })
    expect(managementErrorAnswer(new InvalidInputError('accepted.x', 'no'), { accepted: 'acceptedPasscodes' }).body.error.field).toBe(
      'acceptedPasscodes.x',
    )
    expect(managementErrorAnswer(new InvalidInputError('optionsX', 'no'), { options: '' }).body.error.field).toBe('optionsX')
    expect(managementErrorAnswer(new InvalidInputError('options', 'must be an object'), { options: '' }).body.error.field).toBe('options')
    expect(managementErrorAnswer(new ForbiddenError('no')).body.error).not.toHaveProperty('field')
  })

  it('answers anything else as 500 ERR_INTERNAL with a fixed message: no stack, no internals', () => {
    const answer = managementErrorAnswer(new TypeError("Cannot read properties of undefined (reading 'hash') at store.ts:12"))
    expect(answer).toEqual({ statusCode: 500, body: { error: { code: 'ERR_INTERNAL', message: 'Internal error' } } })
  })

  it('gives every code a 4xx or 5xx status', () => {
    for (const [code, status] of Object.entries(MANAGEMENT_ERROR_STATUS)) {
      expect(status >= 400 && status < 600, code).toBe(true)
    }
  })
})
