import { once } from 'node:events'
import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 that a test puts between a `pg` Pool and PostgreSQL, to
 * break the connection on purpose: refuse new connections, hold what the client sends
 * (a query stays in flight), cut every open connection at once, go silent: a
 * silent cut, as a dropped NAT entry, a load balancer's idle timeout or a blackholed
 * route make one, where nothing arrives and nothing says so (no FIN, no RST), or hang
 * as a load balancer or pooler that stopped working does: it still accepts connections
 * and never answers them.
 */
export interface TcpProxy {
  readonly port: number
  /** `connectionString` with its port replaced by the proxy's. */
  via(connectionString: string): string
  /** While on, new connections are accepted and closed at once, like a refused connection. */
  refuse(on: boolean): void
  /** While on, bytes from clients are held (not forwarded); off forwards what was held. */
  hold(on: boolean): void
  /** Bytes held since `hold(true)`: more than 0 once a request is in flight. */
  heldBytes(): number
  /** Destroys every open connection, both sides, without a goodbye. */
  cut(): void
  /**
   * While on, every byte either way is dropped, on open connections and on new ones
   * (accepted, then never answered), and every socket stays open: no FIN, no RST.
   * Off forwards again, on the connections that lost nothing meanwhile. One that lost
   * bytes either way stays silent for good, as after a real cut: TCP never delivers a
   * stream with a hole in it (it sends them again once the route is back, or the
   * connection dies), so a client could not tell such a hole from a healthy stream; a
   * listening connection that lost a notification, say, is dead, and only its proof of
   * delivery can tell (SPEC §5.32).
   */
  silence(on: boolean): void
  /**
   * While on, a hung load balancer or pooler: open connections go silent (as with
   * {@link silence}), and new connections are accepted and never answered, nor passed
   * on to the server, for as long as the client keeps them open, even after it ends
   * (such a balancer lost them; nothing ever closes them from this side but `close`).
   * Off forwards again on the open connections, as `silence(false)` does.
   */
  hang(on: boolean): void
  /** Number of open client connections that reach the server. */
  readonly connections: number
  /** Number of open client connections accepted while hung: never answered, never passed on. */
  readonly stranded: number
  close(): Promise<void>
}

interface Pair {
  readonly client: Socket
  readonly upstream: Socket
  held: Buffer[]
  /** Bytes were dropped (a cut, a hang): it forwards nothing ever again. */
  lost: boolean
}

/** Starts a proxy to `target` (the server's host and port). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>()
  let refusing = false
  let holding = false
  let silent = false
  let hanging = false
  let held = 0
  const stranded = new Set<Socket>()

  const server = createServer((client) => {
    if (refusing) {
      client.destroy()
      return
    }
    if (hanging) {
      // Read and dropped, so the client's writes never block; never answered, never closed.
      stranded.add(client)
      client.on('data', () => {})
      client.on('error', () => client.destroy()).on('close', () => stranded.delete(client))
      return
    }
    const upstream = connect(target.port, target.host)
    const pair: Pair = { client, upstream, held: [], lost: false }
    pairs.add(pair)
    const drop = (): void => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.on('data', (chunk: Buffer) => {
      if (silent || hanging) pair.lost = true
      if (pair.lost) return
      if (holding) {
        pair.held.push(chunk)
        held += chunk.length
      } else {
        upstream.write(chunk)
      }
    })
    upstream.on('data', (chunk: Buffer) => {
      if (silent || hanging) pair.lost = true
      if (!pair.lost) client.write(chunk)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port

  const cut = (): void => {
    for (const pair of [...pairs]) {
      pairs.delete(pair)
      pair.client.destroy()
      pair.upstream.destroy()
    }
  }

  return {
    port,
    via(connectionString) {
      const url = new URL(connectionString)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      return url.toString()
    },
    refuse(on) {
      refusing = on
    },
    hold(on) {
      holding = on
      if (on) {
        held = 0
        return
      }
      for (const pair of pairs) {
        for (const chunk of pair.held) pair.upstream.write(chunk)
        pair.held = []
      }
    },
    heldBytes: () => held,
    cut,
    silence(on) {
      silent = on
    },
    hang(on) {
      hanging = on
    },
    get connections() {
      return pairs.size
    },
    get stranded() {
      return stranded.size
    },
    async close() {
      cut()
      for (const client of stranded) client.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}
