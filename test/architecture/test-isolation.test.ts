import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { isolatedTests, slowTests } from '../../vitest.config'
import { NODE_FLAGS } from '../helpers/node-flags'

/**
 * Test files outside `isolatedTests` (vitest.config.ts) share a worker, and so a module
 * cache and a process, with the files run before them. A file that changes what the
 * process is (a module mock, an environment variable, a process listener, V8 flags, the
 * umask, OpenTelemetry's globals) would leak that into the next file and fail, or pass,
 * only in a full run. This finds those calls in the shared files, and in the test
 * helpers they import, before that happens.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const UMASK = 'the umask or working folder changed'
const RUN_CLI = 'the command run in this process (it sets the umask)'

const PROCESS_WIDE: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'a module mock', pattern: /\bvi\.(?:mock|doMock|unmock|resetModules)\(/ },
  { what: 'a stubbed environment variable or global', pattern: /\bvi\.(?:stubEnv|stubGlobal)\(/ },
  { what: 'an environment variable set', pattern: /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete\s+process\.env\b/ },
  // A cleanup at exit (a throw-away database cluster's) is harmless: it only runs at the end.
  { what: 'a process listener', pattern: /(?<![\w.])process\.(?:on|once|addListener|prependListener)\((?!\s*'exit')/ },
  { what: UMASK, pattern: /(?<![\w.])process\.(?:umask|chdir)\(/ },
  { what: 'V8 flags set', pattern: /\bsetFlagsFromString\(/ },
  { what: "fetch's global dispatcher set", pattern: /\bsetGlobalDispatcher\(/ },
  { what: "OpenTelemetry's globals set", pattern: /\.setGlobal(?:TracerProvider|MeterProvider|ContextManager|Propagator)\(/ },
  // runCli makes the process's files owner-only (umask 077), as the command does.
  { what: RUN_CLI, pattern: /\brunCli\(/ },
]

/**
 * Helpers that make one of those changes and undo it themselves: what they change, and
 * how that is known. A shared file may load them.
 */
const UNDONE: ReadonlyMap<string, readonly string[]> = new Map([
  // runCli with the umask given back once the last command ends; every shared file's
  // umask is checked after it (test/helpers/umask-unchanged.ts, a setup file).
  ['test/cli/cli-process.ts', [UMASK, RUN_CLI]],
])

/** The file and the test helpers (relative imports outside src/) it loads, transitively; type-only imports load nothing. */
function withTestHelpers(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return []
  seen.add(file)
  const source = readFileSync(file, 'utf8')
  for (const [, specifier] of source.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?\sfrom '(\.[^']+)'/gm)) {
    const target = resolve(dirname(file), specifier!)
    if (target.startsWith(join(ROOT, 'src'))) continue
    for (const candidate of [target, `${target}.ts`, join(target, 'index.ts')]) {
      try {
        readFileSync(candidate)
        withTestHelpers(candidate, seen)
        break
      } catch {
        // not this one
      }
    }
  }
  return [...seen]
}

/** What in `file` (or a helper it loads) changes process-wide state; with `undone`, also what a helper of {@link UNDONE} gives back. */
export function processWideChanges(file: string, { undone = false } = {}): string[] {
  return withTestHelpers(file).flatMap((loaded) => {
    const source = readFileSync(loaded, 'utf8')
    const name = relative(ROOT, loaded)
    const given = undone ? [] : (UNDONE.get(name) ?? [])
    return PROCESS_WIDE.filter(({ what, pattern }) => !given.includes(what) && pattern.test(source)).map(({ what }) => `${name}: ${what}`)
  })
}

const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url))
// This file names the calls it looks for, in its patterns; it makes none of them.
const shared = globSync('test/**/*.test.ts', { cwd: ROOT, ignore: isolatedTests }).filter((file) => file !== THIS_FILE)

describe('test files that share a worker', () => {
  it('are most of the suite, and none of the isolated ones', () => {
    const apart = globSync(isolatedTests, { cwd: ROOT })
    expect(shared.length).toBeGreaterThan(80)
    expect(shared.filter((file) => apart.includes(file))).toEqual([])
  })

  it.each(shared)('%s changes nothing process-wide (else list it in isolatedTests, vitest.config.ts)', (file) => {
    expect(processWideChanges(join(ROOT, file))).toEqual([])
  })

  it('finds each kind of process-wide change in a file that makes it', () => {
    // The detector itself, on files known to make such changes.
    expect(processWideChanges(join(ROOT, 'test/http/warm-path.test.ts')).join('\n')).toContain('a module mock')
    expect(processWideChanges(join(ROOT, 'test/service/peppers.test.ts')).join('\n')).toContain('a stubbed environment variable')
    expect(processWideChanges(join(ROOT, 'test/http/hostile-input.test.ts')).join('\n')).toContain('a process listener')
    expect(processWideChanges(join(ROOT, 'test/service/telemetry.test.ts')).join('\n')).toContain("OpenTelemetry's globals")
  })

  it('lets a file load the in-process CLI only because that helper gives the umask back', () => {
    const all = processWideChanges(join(ROOT, 'test/cli/usage.test.ts'), { undone: true })
    expect(all).toEqual([`test/cli/cli-process.ts: ${UMASK}`, `test/cli/cli-process.ts: ${RUN_CLI}`])
    expect(processWideChanges(join(ROOT, 'test/cli/usage.test.ts'))).toEqual([])
  })
})

describe('the files listed in vitest.config.ts', () => {
  it('are test files that exist', () => {
    const files = globSync('test/**/*.test.ts', { cwd: ROOT })
    expect([...isolatedTests, ...slowTests].filter((file) => !files.includes(file))).toEqual([])
  })
})

describe('the workers', () => {
  it("run with the suite's Node flags (execArgv in vitest.config.ts)", () => {
    expect(process.execArgv).toEqual(expect.arrayContaining([...NODE_FLAGS]))
  })
})
