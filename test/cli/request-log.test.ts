import { describe, expect, it } from 'vitest'
import { createRequestLog, type RequestLogEntry } from '../../src/cli/server/request-log'

const at = () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))
const entry: RequestLogEntry = { method: 'GET', path: '/v1/connect', status: 400, durationMs: 1.234, reason: 'unknown_passcode', requestId: 'req-1' }

function lines(human: boolean, entries: RequestLogEntry[], color = false): string[] {
  const written: string[] = []
  const log = createRequestLog({ write: (line) => written.push(line), human, color, now: at })
  for (const one of entries) log(one)
  return written
}

describe('the reference server request log', () => {
  it('writes one JSON object per line for a collector', () => {
    const [line, second] = lines(false, [entry, { ...entry, status: 200, reason: undefined, path: '/1/events.json' }])
    expect(line).toBe(
      '{"time":"2026-01-02T03:04:05.678Z","method":"GET","path":"/v1/connect","status":400,"durationMs":1.23,"reason":"unknown_passcode","requestId":"req-1"}\n',
    )
    expect(JSON.parse(second!)).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      method: 'GET',
      path: '/1/events.json',
      status: 200,
      durationMs: 1.23,
      requestId: 'req-1',
    })
  })

  it('writes one short line for a person on a terminal, coloured only when asked', () => {
    expect(lines(true, [entry])).toEqual(['03:04:05.678 GET /v1/connect 400 1.2 ms unknown_passcode req-1\n'])
    const [coloured] = lines(true, [entry], true)
    expect(coloured).toContain('\x1b[33m400\x1b[0m')
  })

  it('keeps a client-chosen path from steering the terminal or flooding the line', () => {
    const hostile = { ...entry, path: `/x\x1b[2J\x07${'a'.repeat(500)}` }
    const [human] = lines(true, [hostile])
    expect(human).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
    expect(human!.length).toBeLessThan(300)
    const [json] = lines(false, [hostile])
    expect(json!.trimEnd()).not.toMatch(/[\u0000-\u001f]/)
    expect(JSON.parse(json!).path).toBe(hostile.path)
  })
})
