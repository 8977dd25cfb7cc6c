import { createServer, type AddressInfo, type Socket } from 'node:net'
import { SMTPServer } from 'smtp-server'

/** A message as the test SMTP server received it. */
export interface ReceivedMail {
  readonly mailFrom: string
  readonly rcptTo: readonly string[]
  readonly user: string | undefined
  readonly raw: string
}

export interface TestSmtpServer {
  readonly port: number
  readonly received: ReceivedMail[]
  close(): Promise<void>
}

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1, plain text, no
 * STARTTLS. With `login`, AUTH PLAIN/LOGIN is offered and checked (still optional);
 * `refuse` names recipients answered with 550.
 */
export async function startSmtpServer(
  options: { port?: number; login?: { user: string; pass: string }; refuse?: readonly string[] } = {},
): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: options.login === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.login?.user && auth.password === options.login?.pass) {
        callback(null, { user: auth.username })
      } else {
        callback(new Error('Invalid username or password'))
      }
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.includes(address.address)) {
        callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }))
      } else {
        callback()
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const from = session.envelope.mailFrom
        received.push({
          mailFrom: from === false ? '' : from.address,
          rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: session.user === undefined ? undefined : String(session.user),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const port = (server.server.address() as AddressInfo).port
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** A TCP server that accepts connections and never says a word (no SMTP greeting). */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
