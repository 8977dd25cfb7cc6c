import { chmodSync, existsSync, unlinkSync } from 'node:fs'
import { createConnection, createServer, type Socket } from 'node:net'
import { CliError } from './exit-codes'

/**
 * While `serve` runs on an embedded data folder it holds the folder's lock, so other
 * commands on that folder cannot open the database. They hand their arguments to the
 * running server over a Unix socket in the folder instead, and it runs them on its own
 * store: `passcodes create` works while the server runs, and the server's cache sees
 * the change at once. The socket is as private as the folder (mode 0600 in a 0700
 * folder): whoever can use it can read the database files anyway.
 */

/** What a forwarded command printed and how it ended. */
export interface ForwardedResult {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

/** A listening control socket. */
export interface ControlSocket {
  close(): Promise<void>
}

const MAX_REQUEST_BYTES = 64 * 1024
// Unix socket paths are limited to about 104 bytes (macOS) or 108 (Linux).
const MAX_SOCKET_PATH = 100

function readLine(socket: Socket, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      buffered += chunk
      const end = buffered.indexOf('\n')
      if (end >= 0) resolve(buffered.slice(0, end))
      else if (buffered.length > maxBytes) reject(new Error('request too large'))
    })
    socket.on('end', () => reject(new Error('connection closed before a full line')))
    socket.on('error', reject)
  })
}

/** What the process that handed a command over can do: whether its stderr is a terminal (a login link is shown there only then). */
export interface ForwardingCaller {
  readonly stderrIsTTY: boolean
}

/** Starts the socket at `file`; `undefined` when the path is too long for a Unix socket. */
export async function listenControlSocket(
  file: string,
  run: (argv: string[], caller: ForwardingCaller) => Promise<ForwardedResult>,
): Promise<ControlSocket | undefined> {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH || process.platform === 'win32') return undefined
  // The caller holds the folder's lock, so a socket file left here is a dead server's.
  if (existsSync(file)) unlinkSync(file)
  const server = createServer((socket) => {
    readLine(socket, MAX_REQUEST_BYTES)
      .then(async (line) => {
        const request = JSON.parse(line) as { argv?: unknown; stderrIsTTY?: unknown }
        if (!Array.isArray(request.argv) || !request.argv.every((arg) => typeof arg === 'string')) throw new Error('bad request')
        const result = await run(request.argv, { stderrIsTTY: request.stderrIsTTY === true })
        socket.end(`${JSON.stringify(result)}\n`)
      })
      .catch(() => socket.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(file, () => resolve())
  })
  chmodSync(file, 0o600)
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        if (existsSync(file)) unlinkSync(file)
      }),
  }
}

/**
 * Runs `argv` in the `serve` listening at `file`. Resolves `undefined` when no server
 * listens there (no socket, or a dead one's), so the caller opens the folder itself.
 */
export function forwardToServe(
  file: string,
  argv: readonly string[],
  caller: ForwardingCaller = { stderrIsTTY: false },
  timeoutMs = 120_000,
): Promise<ForwardedResult | undefined> {
  if (!existsSync(file)) return Promise.resolve(undefined)
  return new Promise((resolve, reject) => {
    const socket = createConnection(file)
    let connected = false
    socket.setTimeout(timeoutMs, () => {
      socket.destroy()
      reject(new CliError('ERR_DATA_FOLDER', `The running passcode-auth serve did not answer within ${timeoutMs / 1000} s`))
    })
    socket.once('error', (error) => {
      if (!connected) resolve(undefined)
      else reject(new CliError('ERR_DATA_FOLDER', `Lost the connection to the running passcode-auth serve: ${error.message}`))
    })
    socket.once('connect', () => {
      connected = true
      socket.write(`${JSON.stringify({ argv, stderrIsTTY: caller.stderrIsTTY })}\n`)
      readLine(socket, Number.MAX_SAFE_INTEGER).then(
        (line) => {
          socket.destroy()
          resolve(JSON.parse(line) as ForwardedResult)
        },
        (error: unknown) =>
          reject(
            new CliError(
              'ERR_DATA_FOLDER',
              `The running passcode-auth serve ended the connection: ${error instanceof Error ? error.message : String(error)}`,
            ),
          ),
      )
    })
  })
}
