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

/** A scope the host declares (SPEC §5.48): its name and what it lets a passcode do. */
export interface DeclaredScope {
  /** `^[a-z][a-z0-9_.:-]{0,63}$`, as the `scopes` option gives it. */
  readonly name: string
  /** The option's description of it, for people choosing what a passcode may do. */
  readonly description: string
}

/** The scopes the host declares, as the dashboard offers them: `auth.scopes`. */
export interface ScopesApi {
  /**
   * Every scope the `scopes` option declares, in its order; empty when it declares none
   * (then a passcode grants everything, and the dashboard offers no choice). Declaring
   * scopes is the host's job, so there is nothing here to change them.
   *
   * @example
   * ```ts
   * const auth = createPasscodeAuth({ store: memoryStore(), scopes: { 'events:read': 'Read events' } })
   * auth.scopes.list() // [{ name: 'events:read', description: 'Read events' }]
   * ```
   */
  list(): readonly DeclaredScope[]
}

/**
 * Builds `auth.scopes` over the declared scopes.
 *
 * @example
 * ```ts
 * createScopesApi(declaredScopes({ 'events:read': 'Read events' })).list()[0]?.name // 'events:read'
 * ```
 */
export function createScopesApi(scopes: DeclaredScopes): ScopesApi {
  const list = Object.freeze([...scopes.descriptions].map(([name, description]) => Object.freeze({ name, description })))
  return { list: () => list }
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
