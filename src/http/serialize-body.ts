import type { HttpResult } from '../protocol/outcomes'

// The outcome table's bodies are frozen singletons, so each is serialised once.
const serialized = new WeakMap<object, string>()

/**
 * The exact body text of a passcode-auth answer. Every adapter sends this string, so
 * the bytes are the same whatever the framework (and whatever JSON settings the host
 * gave it).
 *
 * @example
 * ```ts
 * serializeBody(FAILURES.unknown_passcode) // '{"status":"fail","error":"Invalid Credentials","code":400}'
 * ```
 */
export function serializeBody(result: HttpResult): string {
  let text = serialized.get(result.body)
  if (text === undefined) {
    text = JSON.stringify(result.body)
    serialized.set(result.body, text)
  }
  return text
}
