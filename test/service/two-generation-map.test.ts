import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { TwoGenerationMap } from '../../src/service/verify/two-generation-map'

describe('TwoGenerationMap', () => {
  it('keeps an entry at most ttlMs and at least half of it', () => {
    const map = new TwoGenerationMap<number>('Test', { ttlMs: 1000, maxEntries: 10 })
    map.set('a', 1, 0, map.generation)
    expect(map.get('a', 499)).toBe(1)
    map.set('b', 2, 600, map.generation) // the second half
    expect(map.get('a', 999)).toBe(1)
    expect(map.get('a', 1000)).toBeUndefined()
    expect(map.get('b', 1000)).toBe(2)
    expect(map.get('b', 1600)).toBeUndefined()
    expect(map.size).toBe(0)
  })

  it('holds at most maxEntries, dropping the oldest insertion first', () => {
    const map = new TwoGenerationMap<number>('Test', { ttlMs: 1000, maxEntries: 3 })
    for (let i = 0; i < 5; i++) map.set(`k${i}`, i, 0, map.generation)
    expect(map.size).toBe(3)
    expect([0, 1, 2, 3, 4].map((i) => map.get(`k${i}`, 0))).toEqual([undefined, undefined, 2, 3, 4])
    map.set('k2', 20, 0, map.generation) // an existing key: nothing evicted
    expect(map.size).toBe(3)
    expect(map.get('k3', 0)).toBe(3)
  })

  it('moves the generation on deleteWhere and clear, so a read from before stores nothing', () => {
    const map = new TwoGenerationMap<number>('Test', { ttlMs: 1000, maxEntries: 10 })
    map.set('a', 1, 0, map.generation)
    map.set('b', 2, 0, map.generation)
    const before = map.generation
    map.deleteWhere((value) => value === 1)
    expect([map.get('a', 0), map.get('b', 0)]).toEqual([undefined, 2])
    map.set('c', 3, 0, before)
    expect(map.get('c', 0)).toBeUndefined()
    expect(map.accepts(0, before)).toBe(false)
    const again = map.generation
    map.delete('b') // an entry found to be over: the generation stays
    expect(map.generation).toBe(again)
    map.clear()
    expect(map.generation).toBe(again + 1)
    expect(map.size).toBe(0)
  })

  it('shows its name and size, never a key or value, in inspect and JSON', () => {
    const map = new TwoGenerationMap<string>('Test', { ttlMs: 1000, maxEntries: 10 })
    map.set('secret-key', 'secret-value', 0, map.generation)
    expect(inspect(map, { showHidden: true, depth: 10 })).toBe('Test { size: 1 }')
    expect(JSON.stringify(map)).toBe('{"size":1}')
  })
})
