import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { inProcessCliTests, isolatedTests, slowTests } from '../../vitest.config'
import { NODE_FLAGS } from '../helpers/node-flags'

/**
 * Test files outside `isolatedTests` (vitest.config.ts) share a worker, and so a module
 * cache and a process, with the files run before them: the files of `inProcessCliTests`
 * with each other, the rest with each other. A file that changes what the
 * process is (a module mock, an environment variable, a process listener, V8 flags, the
 * umask the in-process CLI sets, OpenTelemetry's globals) would leak that into the
 * next file and fail, or pass, only in a full run. This finds those calls in the shared files, and in
 * the test helpers they import, before that happens.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const IN_PROCESS_CLI = 'the in-process CLI (it sets the umask)'

const PROCESS_WIDE: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'a module mock', pattern: /\bvi\.(?:mock|doMock|unmock|resetModules)\(/ },
  { what: 'a stubbed environment variable or global', pattern: /\bvi\.(?:stubEnv|stubGlobal)\(/ },
  { what: 'an environment variable set', pattern: /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete\s+process\.env\b/ },
  // A cleanup at exit (a throw-away database cluster's) is harmless: it only runs at the end.
  { what: 'a process listener', pattern: /(?<![\w.])process\.(?:on|once|addListener|prependListener)\((?!\s*'exit')/ },
  { what: 'the umask or working folder changed', pattern: /(?<![\w.])process\.(?:umask|chdir)\(/ },
  { what: 'V8 flags set', pattern: /\bsetFlagsFromString\(/ },
  { what: "fetch's global dispatcher set", pattern: /\bsetGlobalDispatcher\(/ },
  { what: "OpenTelemetry's globals set", pattern: /\.setGlobal(?:TracerProvider|MeterProvider|ContextManager|Propagator)\(/ },
  // runCli makes the process's files owner-only (umask 077), as the command does.
  { what: IN_PROCESS_CLI, pattern: /\brunCli\b|from '(?:\.\.\/)+(?:test\/)?cli\/cli-process'|from '\.\/cli-process'/ },
]

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

/** What in `file` (or a helper it loads) changes process-wide state. */
export function processWideChanges(file: string): string[] {
  return withTestHelpers(file).flatMap((loaded) => {
    const source = readFileSync(loaded, 'utf8')
    return PROCESS_WIDE.filter(({ pattern }) => pattern.test(source)).map(({ what }) => `${relative(ROOT, loaded)}: ${what}`)
  })
}

const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url))
// This file names the calls it looks for, in its patterns; it makes none of them.
const shared = globSync('test/**/*.test.ts', { cwd: ROOT, ignore: [...isolatedTests, ...inProcessCliTests] }).filter((file) => file !== THIS_FILE)

describe('test files that share a worker', () => {
  it('are most of the suite, and none of the isolated or in-process CLI ones', () => {
    const apart = globSync([...isolatedTests, ...inProcessCliTests], { cwd: ROOT })
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
    expect(processWideChanges(join(ROOT, 'test/cli/usage.test.ts')).join('\n')).toContain('the in-process CLI')
  })
})

/** Whether `change` (a line of {@link processWideChanges}) is the one the in-process CLI makes: the umask. */
const byTheCli = (change: string): boolean => change.endsWith(`: ${IN_PROCESS_CLI}`)

/** What in `file` changes process-wide state, but for what the in-process CLI changes. */
const beyondTheCli = (file: string): string[] => processWideChanges(join(ROOT, file)).filter((change) => !byTheCli(change))

describe('test files that share a worker with the in-process CLI', () => {
  // Each leaves the process as every other one does (umask 077),
  // so the next file in the worker finds what it would have made itself.
  it.each(inProcessCliTests)('%s makes no process-wide change but the in-process CLI\'s (else list it in isolatedTests)', (file) => {
    const changes = processWideChanges(join(ROOT, file))
    expect(changes.filter((change) => !byTheCli(change))).toEqual([])
    const loadsCli = changes.some((change) => change.endsWith(`: ${IN_PROCESS_CLI}`))
    expect(loadsCli, `${file} loads no in-process CLI: it belongs with the shared files`).toBe(true)
  })

  it('tells the CLI\'s changes from the others', () => {
    expect(beyondTheCli('test/service/peppers.test.ts').join('\n')).toContain('a stubbed environment variable')
    expect(beyondTheCli('test/http/hostile-input.test.ts').join('\n')).toContain('a process listener')
  })

  it('are none of the isolated ones', () => {
    expect(inProcessCliTests.filter((file) => isolatedTests.includes(file))).toEqual([])
  })
})

describe('the files listed in vitest.config.ts', () => {
  it('are test files that exist', () => {
    const files = globSync('test/**/*.test.ts', { cwd: ROOT })
    expect([...isolatedTests, ...inProcessCliTests, ...slowTests].filter((file) => !files.includes(file))).toEqual([])
  })
})

describe('the workers', () => {
  it("run with the suite's Node flags (execArgv in vitest.config.ts)", () => {
    expect(process.execArgv).toEqual(expect.arrayContaining([...NODE_FLAGS]))
  })
})
