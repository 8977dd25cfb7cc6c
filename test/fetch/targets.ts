import { getRequestListener, type Http2Bindings, type HttpBindings } from '@hono/node-server'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { HttpTarget } from '../conformance/http'
import { listen } from '../http/frameworks'
import { fetchHost, honoHost } from './hosts'

// overrideGlobalObjects: false keeps @hono/node-server from replacing the test process's
// global Request and Response with its own lighter ones.
const NODE_SERVER = { overrideGlobalObjects: false } as const

/** passcode-auth/fetch and passcode-auth/hono on Node, through @hono/node-server, over a real socket. */
export const FETCH_TARGETS: readonly HttpTarget[] = [
  {
    name: 'fetch (node-server)',
    start: (auth, options) => {
      const host = fetchHost(auth, options)
      return listen(
        getRequestListener((request: Request, env: HttpBindings | Http2Bindings) => host(request, env.incoming.socket.remoteAddress), NODE_SERVER),
      )
    },
  },
  {
    name: 'hono 4 (node-server)',
    start: (auth, options) => listen(getRequestListener(honoHost(auth, (c) => getConnInfo(c).remote.address, options?.cors).fetch, NODE_SERVER)),
  },
]
