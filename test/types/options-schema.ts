/**
 * Type tests of the compile-time check in src/service/options.ts: the options schema,
 * composed from the features' own schemas, must accept exactly what the documented
 * `PasscodeAuthOptions` interface says, `readonly` aside. Compiled by `npx tsc
 * --noEmit`, never run: each `@ts-expect-error` fails the build if its line ever
 * compiles, that is if the check stopped seeing that mismatch.
 */
import { z } from 'zod'
import type { PasscodeAuthOptions } from '../../src/service/options'
import { optionsSchema } from '../../src/service/options'
import type { SameOptions } from '../../src/service/same-options'

type Schema<T extends z.ZodType> = z.input<T>

// The real pair: what src/service/options.ts asserts.
export const composed: SameOptions<PasscodeAuthOptions, Schema<typeof optionsSchema>> = true

// `readonly` is set aside, at every depth: documented readonly arrays match the schema's arrays.
export const readonlyAside: SameOptions<{ partners?: readonly (readonly string[])[] }, { partners?: string[][] | undefined }> = true

// A nested option of the wrong type.
const wrongNestedType = optionsSchema.extend({ cache: z.union([z.literal(false), z.object({ ttlMs: z.string().optional() })]).optional() })
// @ts-expect-error cache.ttlMs is a number in the documented interface
export const nestedType: SameOptions<PasscodeAuthOptions, Schema<typeof wrongNestedType>> = true

// A nested option the schema forgets: optional on both sides, so mere assignability would miss it.
const missingNested = optionsSchema.extend({
  notifier: z.object({ leaseMs: z.number().optional(), batchSize: z.number().optional() }).optional(),
})
// @ts-expect-error notifier.sendTimeoutMs is documented but not in the schema
export const nestedMissing: SameOptions<PasscodeAuthOptions, Schema<typeof missingNested>> = true

// An option the interface does not document.
const extraOption = optionsSchema.extend({ verbose: z.boolean().optional() })
// @ts-expect-error `verbose` is not a documented option
export const extra: SameOptions<PasscodeAuthOptions, Schema<typeof extraOption>> = true

// An optional option the schema requires.
const requiredPepper = optionsSchema.extend({ pepper: z.string() })
// @ts-expect-error `pepper` is optional in the documented interface (and may be bytes or a list)
export const required: SameOptions<PasscodeAuthOptions, Schema<typeof requiredPepper>> = true

// Narrower bytes than documented: z.instanceof(Uint8Array) types only the views of an ArrayBuffer.
const narrowerBytes = optionsSchema.extend({
  encryptionKeys: z.array(z.object({ id: z.string(), key: z.union([z.string(), z.instanceof(Uint8Array)]) })).optional(),
})
// @ts-expect-error the documented key is any Uint8Array
export const bytes: SameOptions<PasscodeAuthOptions, Schema<typeof narrowerBytes>> = true

// A readonly array on the schema's side is no mismatch either.
export const readonlyOnSchemaSide: SameOptions<{ keys?: string[] }, { keys?: readonly string[] | undefined }> = true
