import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** A JavaScript runtime the fetch adapter is tested under. */
export type RuntimeName = 'bun' | 'deno'

/** Where a runtime's binary is, or why it is not here. */
export type RuntimeBinary = { readonly available: true; readonly path: string } | { readonly available: false; readonly reason: string }

const root = join(import.meta.dirname, '../..')
const INSTALLED: Record<RuntimeName, { readonly variable: string; readonly path: string }> = {
  bun: { variable: 'BUN_BINARY', path: '.runtimes/node_modules/@oven/bun-linux-x64/bin/bun' },
  deno: { variable: 'DENO_BINARY', path: '.runtimes/node_modules/@deno/linux-x64-glibc/deno' },
}

/**
 * Finds a runtime's binary: `BUN_BINARY` / `DENO_BINARY` when set, else the copy that
 * `bash scripts/install-runtimes.sh` puts in `.runtimes/`.
 */
export function runtimeBinary(name: RuntimeName): RuntimeBinary {
  const { variable, path } = INSTALLED[name]
  const fromEnv = process.env[variable]
  if (fromEnv) return existsSync(fromEnv) ? { available: true, path: fromEnv } : { available: false, reason: `${variable}=${fromEnv} does not exist` }
  const installed = join(root, path)
  if (existsSync(installed)) return { available: true, path: installed }
  return { available: false, reason: `no ${name} binary: run \`bash scripts/install-runtimes.sh\` or set ${variable}` }
}
