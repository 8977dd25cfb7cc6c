/**
 * Node's flags for every process of the test suite that runs PGlite: the vitest workers
 * (`execArgv` in vitest.config.ts), the bundled command (test/helpers/cli-command.ts)
 * and the README's blocks (test/readme/readme.test.ts). V8 compiles WebAssembly
 * (PGlite's) with its baseline compiler only, without optimising it again on background
 * threads: the same program, and for processes that live seconds, less CPU. Opening a
 * data folder costs about half a second of CPU less (1.3 → 0.75 s), a new in-memory
 * PGlite about 2 s (4.3 → 2.3 s on Node 20), loading one from a dump about 1.5 s.
 *
 * Not for the reference server itself (`passcode-auth serve`, `npm run soak`): a server
 * that runs for days wants its hot WebAssembly optimised.
 *
 * @example
 * ```ts
 * execFile(process.execPath, [...NODE_FLAGS, 'program.mjs'])
 * ```
 */
export const NODE_FLAGS: readonly string[] = ['--liftoff-only']
