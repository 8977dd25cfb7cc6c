import { InvalidInputError } from '../core/errors'

/**
 * The scopes a host declares (SPEC §5.48), as the service's jobs use them: the
 * management jobs refuse a scope not declared, the views show the ones no longer
 * declared as unknown, and the verification pipeline lists on each principal what it
 * grants. Shared below the service's folders.
 */
export interface DeclaredScopes {
  /** Each declared scope's description, in the order declared. */
  readonly descriptions: ReadonlyMap<string, string>
  /** The declared names. */
  readonly names: ReadonlySet<string>
  /**
   * What a passcode with these stored scopes grants, as its principal lists it: every
   * declared scope for `null`, else those of the list still declared. `undefined` when
   * the host declares no scopes (the principal then has no `scopes` field).
   */
  granted(stored: readonly string[] | null): readonly string[] | undefined
  /** Refuses (an `InvalidInputError` on `field`) a list that names a scope not declared. */
  assertDeclared(list: readonly string[] | null | undefined, field: string): void
}

/**
 * The declared scopes of the `scopes` option (checked by its schema): name → description.
 *
 * @example
 * ```ts
 * const scopes = declaredScopes({ 'events:read': 'Read events' })
 * scopes.granted(null) // ['events:read']
 * ```
 */
export function declaredScopes(option: Readonly<Record<string, string>> | undefined): DeclaredScopes {
  const descriptions = new Map(Object.entries(option ?? {}))
  const names: ReadonlySet<string> = new Set(descriptions.keys())
  const all = Object.freeze([...names])
  return {
    descriptions,
    names,
    granted(stored) {
      if (names.size === 0) return undefined
      if (stored === null) return all
      return Object.freeze(stored.filter((scope) => names.has(scope)))
    },
    assertDeclared(list, field) {
      const unknown = list?.find((scope) => !names.has(scope))
      if (unknown === undefined) return
      throw new InvalidInputError(
        field,
        `"${unknown}" is not a scope this service declares (${names.size === 0 ? 'it declares none' : `declared: ${[...names].join(', ')}`})`,
      )
    },
  }
}
