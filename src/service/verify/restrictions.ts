import type { PasscodeMetadata, Principal } from '../../core/entities'
import { InvalidOptionsError } from '../../core/errors'
import { printableName } from '../../core/own-data'
import { storedAddresses, storedScopes } from '../../core/restrictions'
import type { CredentialMatch } from '../../ports/passcode-store'
import { missingScope as missingScopeAnswer } from '../../protocol/outcomes'
import { compileAddressRanges, type AddressMatcher } from '../address-ranges'
import type { AuthRefusal } from '../auth-outcome'
import type { DeclaredScopes } from '../scopes'

/*
 * Step 7 of the verification pipeline (see pipeline.ts), after the rules: what a
 * restricted passcode allows (SPEC §5.48, §5.49). The address allowlist first, then the
 * scopes the route needs: a caller from an address not allowed learns nothing of what
 * the passcode could do. What a cached principal needs for these checks (the scopes as
 * a set, the ranges compiled) is made once per store read and kept on the principal
 * itself, out of sight, so the warm path reads one property and asks a Set and a
 * matcher: no store read, no allocation.
 */

/** Where a principal keeps its {@link Grant}: a symbol no caller has, on a non-enumerable property (no JSON, no `util.inspect`, no spread). */
const GRANT: unique symbol = Symbol('passcode-auth.grant')

/** What a restricted passcode allows, compiled once per store read; absent on a passcode with every scope and no ranges. */
interface Grant {
  /** The scopes granted; `undefined`: every declared scope. */
  readonly scopes: ReadonlySet<string> | undefined
  /** The ranges it may be used from; `undefined`: any address. */
  readonly addresses: AddressMatcher | undefined
}

type Granted = Principal & { readonly [GRANT]?: Grant }

/**
 * The scopes a route needs, checked against the declared ones once, when its guard is
 * made (`auth.requiredScopes`), so a request only compares.
 *
 * @example
 * ```ts
 * const required = auth.requiredScopes(['events:write'])
 * const answer = auth.verifyRequest(request, reader, required)
 * ```
 */
export interface ScopeRequirement {
  /** The scopes, in the route's order: the 403 names the first one missing. */
  readonly scopes: readonly string[]
}

/** Builds the principal of a match, with its grant; see {@link createPrincipals}. */
export interface Principals {
  /** The principal of a credential the store found, restrictions compiled. */
  of(match: CredentialMatch): Principal
  /** A route's requirement: every scope declared, else an `InvalidOptionsError` naming it. */
  requirement(scopes: unknown, option?: string): ScopeRequirement | undefined
}

/**
 * The principals of one service: with the declared scopes, each lists what it grants
 * (SPEC §5.48), and carries its metadata (SPEC §5.51).
 *
 * @example
 * ```ts
 * const principals = createPrincipals(declaredScopes(undefined))
 * const principal = principals.of(match)
 * ```
 */
export function createPrincipals(declared: DeclaredScopes): Principals {
  return {
    of(match) {
      const stored = storedScopes(match.record)
      const ranges = storedAddresses(match.record)
      const granted = declared.granted(stored)
      const principal: Principal =
        match.kind === 'user'
          ? { accountId: match.record.accountId, kind: 'user', userId: match.record.userId, ...(granted !== undefined && { scopes: granted }) }
          : accountPrincipal(match.record, granted)
      if (stored === null && ranges.length === 0) return principal
      const grant: Grant = {
        scopes: stored === null ? undefined : new Set(granted ?? []),
        addresses: ranges.length === 0 ? undefined : compileAddressRanges(ranges),
      }
      Object.defineProperty(principal, GRANT, { value: grant, enumerable: false })
      return principal
    },
    requirement(scopes, option = 'scopes') {
      if (scopes === undefined) return undefined
      if (!Array.isArray(scopes) || scopes.length === 0) throw new InvalidOptionsError(option, 'must be a non-empty list of declared scope names')
      for (const scope of scopes as unknown[]) {
        if (typeof scope !== 'string' || !declared.names.has(scope)) {
          const known = [...declared.names]
          throw new InvalidOptionsError(
            option,
            `${typeof scope === 'string' ? `"${printableName(scope)}"` : 'an entry'} is not a declared scope (createPasscodeAuth's \`scopes\` option${known.length === 0 ? ' declares none' : `: ${known.join(', ')}`})`,
          )
        }
      }
      return Object.freeze({ scopes: Object.freeze([...new Set(scopes as string[])]) })
    },
  }
}

function accountPrincipal(record: Extract<CredentialMatch, { kind: 'account' }>['record'], scopes: readonly string[] | undefined): Principal {
  const { accountId, id, name, partners } = record
  const metadata: PasscodeMetadata | null | undefined = record.metadata
  // An unbound, unrestricted passcode's principal is exactly what it was before bindings existed.
  return {
    accountId,
    kind: 'account',
    passcodeId: id,
    passcodeName: name,
    ...(partners !== null && { partners }),
    ...(scopes !== undefined && { scopes }),
    ...(metadata != null && { metadata }),
  }
}

/**
 * Why a restricted passcode is refused here: its address is outside its ranges, or
 * unknown (the adapter could not see it), or the first scope the route needs that it lacks.
 */
export type RestrictionRefusal = 'address_not_allowed' | 'address_unknown' | { readonly missingScope: string }

/**
 * Whether a verified principal may go on (`undefined`) or why not: the address first
 * (`address` is read only when the passcode has ranges; `undefined`: the adapter could
 * not see it, which refuses, SPEC §5.49), then the scopes `required`, in its order.
 */
export function restrictionRefusal<Source>(
  principal: Principal,
  required: ScopeRequirement | undefined,
  address: (source: Source) => string | undefined,
  source: Source,
): RestrictionRefusal | undefined {
  const grant = (principal as Granted)[GRANT]
  if (grant === undefined) return undefined
  if (grant.addresses !== undefined) {
    const caller = address(source)
    if (caller === undefined) return 'address_unknown'
    if (!grant.addresses.allows(caller)) return 'address_not_allowed'
  }
  const { scopes } = grant
  if (required === undefined || scopes === undefined) return undefined
  for (const scope of required.scopes) if (!scopes.has(scope)) return { missingScope: scope }
  return undefined
}

/**
 * Whether a principal has every scope of `required` (SPEC §5.48): `undefined`, or the
 * 403 naming the first one missing. For hosts and adapters that verify once and check
 * scopes per handler (a NestJS guard); a principal made by passcode-auth is checked by
 * what it grants, any other by its `scopes` list.
 *
 * @example
 * ```ts
 * const refusal = scopeRefusal(principal, required)
 * if (refusal !== undefined) return reply.code(refusal.statusCode).send(refusal.body)
 * ```
 */
export function scopeRefusal(principal: Principal, required: ScopeRequirement): AuthRefusal | undefined {
  const grant = (principal as Granted)[GRANT]
  const has =
    grant !== undefined
      ? (scope: string) => grant.scopes === undefined || grant.scopes.has(scope)
      : (scope: string) => principal.scopes === undefined || principal.scopes.includes(scope)
  for (const scope of required.scopes) if (!has(scope)) return missingScopeRefusal(scope)
  return undefined
}

const refusals = new Map<string, AuthRefusal>()

/** The 403 of a missing scope (SPEC §5.48), one frozen answer per scope. */
export function missingScopeRefusal(scope: string): AuthRefusal {
  let refusal = refusals.get(scope)
  if (refusal === undefined) {
    const { statusCode, body } = missingScopeAnswer(scope)
    refusal = Object.freeze({ ok: false, reason: 'missing_scope', statusCode, body })
    // Scope names are declared by the host, at most 100 of them: the map stays small.
    refusals.set(scope, refusal)
  }
  return refusal
}
