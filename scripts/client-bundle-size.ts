/**
 * Measures what `passcode-auth/client` costs a browser page: src/client/index.ts
 * bundled by esbuild for the browser with every dependency included (what
 * `esbuild --bundle --minify --platform=browser` gives a partner dashboard), minified,
 * then gzipped. Fails (exit 1) above 8 KB.
 *
 *   npx tsx scripts/client-bundle-size.ts
 */
import { build } from 'esbuild'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'

/** The budget: at most 8 KB gzipped, every dependency included. */
export const CLIENT_BUNDLE_BUDGET_BYTES = 8 * 1024

/** The measured browser bundle of the client entry. */
export interface ClientBundle {
  /** The minified ESM code. */
  readonly code: string
  readonly minifiedBytes: number
  readonly gzippedBytes: number
  /** Source files that ended up in the bundle, relative to the repository root. */
  readonly inputs: readonly string[]
  /** Imports left external (none is expected: the bundle must stand alone). */
  readonly externalImports: readonly string[]
}

/**
 * Bundles the client for the browser as a user's bundler would, and measures it: src/client/index.ts,
 * or `entry` (an absolute path: the built entry of the packed @passcode-auth/client).
 */
export async function bundleClient(entry = 'src/client/index.ts'): Promise<ClientBundle> {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.text
  const output = Object.values(result.metafile.outputs)[0]!
  return {
    code,
    minifiedBytes: Buffer.byteLength(code),
    gzippedBytes: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.keys(output.inputs).sort(),
    externalImports: output.imports.filter((entry) => entry.external).map((entry) => entry.path),
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bundle = await bundleClient()
  console.log(`client bundle (browser, minified, every dependency included): ${bundle.minifiedBytes} bytes`)
  console.log(`gzipped: ${bundle.gzippedBytes} bytes (budget ${CLIENT_BUNDLE_BUDGET_BYTES})`)
  console.log(`inputs: ${bundle.inputs.join(', ')}`)
  if (bundle.gzippedBytes > CLIENT_BUNDLE_BUDGET_BYTES) process.exitCode = 1
}
