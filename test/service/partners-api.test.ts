import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, StorageError } from '../../src/index'
import { memoryStore } from '../../src/memory'

describe("auth.partners.list (the dashboard's read-only GET /partners)", () => {
  it('lists a static whitelist normalised and sorted', async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), partners: [' Globex', 'acme', 'ACME'] })
    expect(await auth.partners.list()).toEqual(['acme', 'globex'])
  })

  it('answers null for a registry without list(), and a storage error for one that throws', async () => {
    const unlisted = createPasscodeAuth({ store: memoryStore(), partners: { isWhitelisted: () => true } })
    expect(await unlisted.partners.list()).toBeNull()
    const failing = createPasscodeAuth({
      store: memoryStore(),
      partners: { isWhitelisted: () => true, list: () => Promise.reject(new Error('connection refused')) },
    })
    await expect(failing.partners.list()).rejects.toBeInstanceOf(StorageError)
  })
})
