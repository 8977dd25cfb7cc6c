import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** Messages between the orchestrator and a benchmark child. */
export type ChildMessage =
  | { readonly type: 'ready'; readonly port?: number; readonly info?: unknown }
  | { readonly type: 'result'; readonly data: unknown }
  | { readonly type: 'error'; readonly message: string }
  | { readonly type: 'cpu'; readonly micros?: number }

/** A running child: its process and the first `ready` message. */
export interface RunningChild {
  readonly process: ChildProcess
  readonly ready: Promise<{ port?: number; info?: unknown }>
  /** Resolves with the data of the child's `result` message. */
  readonly result: Promise<unknown>
  stop(): Promise<void>
  /** The child's CPU time so far (user + system), in µs: what its work cost, whatever else runs on the machine. */
  cpuMicros(): Promise<number>
}

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))

/**
 * Starts `bench/<file>` in its own Node process (own event loop and heap), through tsx,
 * with an IPC channel for `ready` and `result` messages.
 */
export function startChild(file: string, options: { args?: string[]; env?: NodeJS.ProcessEnv; nodeFlags?: string[] } = {}): RunningChild {
  const child = fork(`${BENCH_DIR}${file}`, options.args ?? [], {
    execArgv: ['--import', 'tsx', ...(options.nodeFlags ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let exited = false
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true
      resolve(code)
    }),
  )
  const waitFor = (type: 'ready' | 'result') =>
    new Promise<ChildMessage>((resolve, reject) => {
      const onMessage = (message: ChildMessage) => {
        if (message.type === type) resolve(message)
        else if (message.type === 'error') reject(new Error(`${file}: ${message.message}`))
      }
      child.on('message', onMessage)
      void exit.then((code) => reject(new Error(`${file} exited with code ${code} before '${type}'`)))
    })
  const ready = waitFor('ready').then((message) => {
    const { port, info } = message as { port?: number; info?: unknown }
    return { port, info }
  })
  const result = waitFor('result').then((message) => (message as { data: unknown }).data)
  ready.catch(() => {})
  result.catch(() => {})
  return {
    process: child,
    ready,
    result,
    cpuMicros() {
      return new Promise<number>((resolve, reject) => {
        const onMessage = (message: ChildMessage) => {
          if (message.type !== 'cpu' || message.micros === undefined) return
          child.off('message', onMessage)
          resolve(message.micros)
        }
        child.on('message', onMessage)
        if (!child.send({ type: 'cpu' } satisfies ChildMessage)) reject(new Error(`${file}: cannot ask for its CPU time`))
      })
    },
    async stop() {
      if (exited) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exit
      clearTimeout(timer)
    },
  }
}

/** Runs a child to completion and returns its result. */
export async function runChild<T>(file: string, options: Parameters<typeof startChild>[1] = {}): Promise<T> {
  const child = startChild(file, options)
  try {
    return (await child.result) as T
  } finally {
    await child.stop()
  }
}

/** In a child: answers the orchestrator's questions for its CPU time. */
export function answerCpuQuestions(): void {
  process.on('message', (message: ChildMessage) => {
    if (message.type !== 'cpu') return
    const { user, system } = process.cpuUsage()
    tell({ type: 'cpu', micros: user + system })
  })
}

/** In a child: sends a message to the orchestrator (no-op when run directly). */
export function tell(message: ChildMessage): void {
  process.send?.(message)
}

/**
 * In a child: runs `main`, reports its result (or its failure) to the orchestrator,
 * and exits unless `keepAlive` (servers stay up until the orchestrator stops them).
 */
export function runAsChild(main: () => Promise<unknown>, options: { keepAlive?: boolean } = {}): void {
  main().then(
    (data) => {
      if (options.keepAlive === true) return
      if (process.send === undefined) {
        console.log(JSON.stringify(data, null, 2))
        process.exit(0)
      }
      process.send({ type: 'result', data } satisfies ChildMessage, () => process.exit(0))
    },
    (error: unknown) => {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
      if (process.send === undefined) {
        console.error(message)
        process.exit(1)
      }
      process.send({ type: 'error', message } satisfies ChildMessage, () => process.exit(1))
    },
  )
}
