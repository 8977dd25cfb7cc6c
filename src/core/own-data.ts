/**
 * Reading options and input without what their prototype chain carries, and naming
 * a key the caller chose without letting its bytes into a message.
 */

/** Which keys of an options object hold option objects themselves, to copy the same way. */
export interface OptionGroups {
  readonly [key: string]: OptionGroups
}

/** Whether `value` is a plain object (made by `{}`, `JSON.parse` or `Object.create(null)`), not an instance of a class. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * A copy of a plain object's own enumerable properties in an object without a
 * prototype, so that nothing read from it comes from `Object.prototype` (a polluted
 * one included), and a `__proto__` key stays an ordinary key, which a strict check
 * then refuses by name. The values of the keys named in `groups` are copied the same
 * way (an option group such as `cache`); every other value is kept as it is (a store,
 * a function, a class instance: the host's object, not a copy). Anything but a plain
 * object is returned unchanged.
 *
 * @example
 * ```ts
 * const options = ownOptions(JSON.parse('{"cache":{"ttlMs":5},"__proto__":{}}'), { cache: {} })
 * Object.keys(options) // ['cache', '__proto__'], neither inherited from anything
 * ```
 */
export function ownOptions<T>(value: T, groups: OptionGroups = {}): T {
  if (!isPlainObject(value)) return value
  const copy = Object.create(null) as Record<string, unknown>
  for (const key of Object.keys(value)) {
    const group = Object.hasOwn(groups, key) ? groups[key] : undefined
    copy[key] = group === undefined ? value[key] : ownOptions(value[key], group)
  }
  return copy as T
}

/**
 * Own data, deeply: every plain object and array at any depth (up to `maxDepth`)
 * copied as in {@link ownOptions}. For input that is data only (a JSON body, a
 * service call's input), where no value is the caller's object to keep.
 *
 * @example
 * ```ts
 * ownData(JSON.parse('{"validity":{"__proto__":{"type":"infinite"}}}')) // __proto__ stays an own key
 * ```
 */
export function ownData(value: unknown, maxDepth = 4): unknown {
  if (maxDepth < 0 || typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map((item) => ownData(item, maxDepth - 1))
  const copy = Object.create(null) as Record<string, unknown>
  for (const key of Object.keys(value)) copy[key] = ownData((value as Record<string, unknown>)[key], maxDepth - 1)
  return copy
}

const MAX_NAME_LENGTH = 64

/**
 * A key the caller chose, fit for a message: every character outside printable ASCII,
 * and the backslash, written as a `\uXXXX` escape (`\r`, `\n` and `\t` as such), cut to
 * 64 characters. No CR, LF, ESC or other control character, and no line or bidi
 * control, reaches a message, a log line or an event through it.
 *
 * @example
 * ```ts
 * printableName('bad\r\nname') // 'bad\\r\\nname'
 * ```
 */
export function printableName(name: string): string {
  const cut = name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}…` : name
  return cut.replace(/[^\x20-\x5b\x5d-\x7e…]/g, (char) => {
    if (char === '\r') return '\\r'
    if (char === '\n') return '\\n'
    if (char === '\t') return '\\t'
    if (char === '\\') return '\\\\'
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}
