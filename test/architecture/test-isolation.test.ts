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

/**
 * A process-wide change, how to find it in a file's source, and, where the change can
 * be given back, how a file gives it back: a file that makes the change and undoes all
 * of it (each listener it adds removed with the same function, each OpenTelemetry
 * global it sets disabled) may share a worker.
 */
interface ProcessWideChange {
  readonly what: string
  readonly pattern: RegExp
  /** Whether a source that makes the change gives all of it back; without it, a change is never given back. */
  readonly givenBack?: (source: string) => boolean
}

/**
 * Whether each `process.on('event', handler)` call of `source` is undone by a
 * `process.off('event', handler)` (or `removeListener`) in it; a listener not added by
 * name (an inline function, an event in a variable) cannot be removed, so it is not.
 */
function listenersRemoved(source: string): boolean {
  return [...source.matchAll(/(?<![\w.])process\.(?:on|once|addListener|prependListener)\((?!\s*'exit')([^)]*)\)/g)].every(([, args]) => {
    const named = /^\s*('[^']+')\s*,\s*(\w+)\s*$/.exec(args!)
    if (named === null) return false
    const event = named[1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    return new RegExp(`process\\.(?:off|removeListener)\\(\\s*${event}\\s*,\\s*${named[2]}\\s*\\)`).test(source)
  })
}

/** Whether each OpenTelemetry global `source` sets is reset by the `disable()` of its API in it. */
function telemetryDisabled(source: string): boolean {
  const api = { TracerProvider: 'trace', MeterProvider: 'metrics', ContextManager: 'context', Propagator: 'propagation' } as const
  return [...source.matchAll(/\.setGlobal(TracerProvider|MeterProvider|ContextManager|Propagator)\(/g)].every(([, kind]) =>
    source.includes(`${api[kind as keyof typeof api]}.disable()`),
  )
}

const PROCESS_WIDE: readonly ProcessWideChange[] = [
  { what: 'a module mock', pattern: /\bvi\.(?:mock|doMock|unmock|resetModules)\(/ },
  {
    what: 'a stubbed environment variable or global',
    pattern: /\bvi\.(?:stubEnv|stubGlobal)\(/,
    givenBack: (source) =>
      (!/\bvi\.stubEnv\(/.test(source) || /\bvi\.unstubAllEnvs\(\)/.test(source)) &&
      (!/\bvi\.stubGlobal\(/.test(source) || /\bvi\.unstubAllGlobals\(\)/.test(source)),
  },
  { what: 'an environment variable set', pattern: /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete\s+process\.env\b/ },
  // A cleanup at exit (a throw-away database cluster's) is harmless: it only runs at the end.
  { what: 'a process listener', pattern: /(?<![\w.])process\.(?:on|once|addListener|prependListener)\((?!\s*'exit')/, givenBack: listenersRemoved },
  { what: UMASK, pattern: /(?<![\w.])process\.(?:umask|chdir)\(/ },
  { what: 'V8 flags set', pattern: /\bsetFlagsFromString\(/ },
  { what: "fetch's global dispatcher set", pattern: /\bsetGlobalDispatcher\(/ },
  {
    what: "OpenTelemetry's globals set",
    pattern: /\.setGlobal(?:TracerProvider|MeterProvider|ContextManager|Propagator)\(/,
    givenBack: telemetryDisabled,
  },
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

/**
 * What `source` changes process-wide and does not give back; with `undone`, also what
 * it gives back.
 */
export function changesIn(source: string, { undone = false } = {}): string[] {
  return PROCESS_WIDE.filter(({ pattern, givenBack }) => pattern.test(source) && (undone || givenBack?.(source) !== true)).map(({ what }) => what)
}

/**
 * What in `file` (or a helper it loads) changes process-wide state and is not given
 * back; with `undone`, also what is given back (by the file itself, or by a helper of
 * {@link UNDONE}).
 */
export function processWideChanges(file: string, { undone = false } = {}): string[] {
  return withTestHelpers(file).flatMap((loaded) => {
    const name = relative(ROOT, loaded)
    const given = undone ? [] : (UNDONE.get(name) ?? [])
    return changesIn(readFileSync(loaded, 'utf8'), { undone })
      .filter((what) => !given.includes(what))
      .map((what) => `${name}: ${what}`)
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

  it.each(shared)('%s leaves nothing changed process-wide (else list it in isolatedTests, vitest.config.ts)', (file) => {
    expect(processWideChanges(join(ROOT, file))).toEqual([])
  })

  it('finds each kind of process-wide change in a file that makes it', () => {
    // The detector itself, on files known to make such changes.
    expect(processWideChanges(join(ROOT, 'test/http/warm-path.test.ts')).join('\n')).toContain('a module mock')
    expect(processWideChanges(join(ROOT, 'test/service/peppers.test.ts'), { undone: true }).join('\n')).toContain('a stubbed environment variable')
    expect(processWideChanges(join(ROOT, 'test/http/hostile-input-koa.test.ts'), { undone: true }).join('\n')).toContain('a process listener')
    expect(processWideChanges(join(ROOT, 'test/service/telemetry.test.ts'), { undone: true }).join('\n')).toContain("OpenTelemetry's globals")
  })

  it('lets a file share a worker only when it gives back all it changes', () => {
    const listener = "const onError = () => {}\nbeforeAll(() => process.on('uncaughtException', onError))\n"
    expect(changesIn(listener)).toEqual(['a process listener'])
    expect(changesIn(`${listener}afterAll(() => process.off('uncaughtException', onError))`)).toEqual([])
    expect(changesIn(`${listener}afterAll(() => process.off('unhandledRejection', onError))`)).toEqual(['a process listener'])
    expect(changesIn(`${listener}process.on('warning', () => {})\nafterAll(() => process.off('uncaughtException', onError))`)).toEqual([
      'a process listener',
    ])
    expect(changesIn("process.on('exit', () => cluster.stop())")).toEqual([])

    expect(changesIn("vi.stubEnv('NODE_ENV', 'production')")).toEqual(['a stubbed environment variable or global'])
    expect(changesIn("afterEach(() => vi.unstubAllEnvs())\nvi.stubEnv('NODE_ENV', 'production')")).toEqual([])
    expect(changesIn("afterEach(() => vi.unstubAllEnvs())\nvi.stubGlobal('fetch', fake)")).toEqual(['a stubbed environment variable or global'])

    expect(changesIn('trace.setGlobalTracerProvider(provider)\ncontext.disable()')).toEqual(["OpenTelemetry's globals set"])
    expect(changesIn('trace.setGlobalTracerProvider(provider)\ntrace.disable()')).toEqual([])

    // No undo is looked for: a mocked module stays in the shared module cache.
    expect(changesIn("vi.mock('../../src/core/hashing')\nvi.unmock('../../src/core/hashing')")).toEqual(['a module mock'])
    expect(changesIn("process.env.TZ = 'UTC'\ndelete process.env.TZ")).toEqual(['an environment variable set'])
    // What is given back is still found when asked for.
    expect(changesIn('trace.setGlobalTracerProvider(provider)\ntrace.disable()', { undone: true })).toEqual(["OpenTelemetry's globals set"])
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
