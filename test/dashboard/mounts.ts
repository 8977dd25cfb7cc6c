import { getRequestListener } from '@hono/node-server'
import express5 from 'express'
import express4 from 'express4'
import fastify5 from 'fastify'
import fastify4 from 'fastify4'
import { Hono } from 'hono'
import Koa3 from 'koa'
import Koa2 from 'koa2'
import { dashboard as expressDashboard } from '../../src/express/index'
import { dashboardPlugin } from '../../src/fastify/index'
import { dashboard as fetchDashboard } from '../../src/fetch/dashboard'
import { nodeDashboard } from '../../src/dashboard/index'
import { dashboard as honoDashboard } from '../../src/hono/index'
import { dashboard as koaDashboard } from '../../src/koa/index'
import type { ManagementTarget } from '../conformance/management'
import { listen, listenFastify } from '../http/frameworks'

const asFastify = (factory: unknown) => factory as typeof fastify5

/** Express with the dashboard at /settings; `json` puts `express.json()` in front, as many hosts do. */
function expressTarget(name: string, express: typeof express5, json: boolean): ManagementTarget {
  return {
    name,
    start: (auth, options) => {
      const app = express()
      if (json) app.use(express.json())
      app.use('/settings', expressDashboard(auth, { ...options, session: (req) => options.session((header) => req.get(header)) }))
      return listen(app)
    },
  }
}

function fastifyTarget(name: string, fastify: typeof fastify5): ManagementTarget {
  return {
    name,
    start: async (auth, options) => {
      const app = fastify()
      await app.register(dashboardPlugin, {
        ...options,
        prefix: '/settings',
        auth,
        session: (request) => options.session((header) => request.headers[header] as string | undefined),
      })
      return listenFastify(app)
    },
  }
}

function koaTarget(name: string, Koa: typeof Koa3): ManagementTarget {
  return {
    name,
    start: (auth, options) => {
      const app = new Koa()
      app.silent = true
      app.use(koaDashboard(auth, { ...options, basePath: '/settings', session: (ctx) => options.session((header) => ctx.get(header) || undefined) }))
      app.use((ctx) => {
        ctx.status = 404
        ctx.body = 'host 404'
      })
      return listen(app.callback())
    },
  }
}

/** The web-standard handler behind a minimal node:http → Request bridge, as Bun or Deno would call it. */
function fetchTarget(): ManagementTarget {
  return {
    name: 'fetch (Request/Response)',
    start: (auth, options) => {
      const handle = fetchDashboard(auth, {
        ...options,
        basePath: '/settings',
        session: (request) => options.session((header) => request.headers.get(header) ?? undefined),
      })
      return listen(async (req, res) => {
        const chunks: Buffer[] = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const headers = new Headers()
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value)
        const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
        const response = await handle(
          new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, ...(hasBody && { body: Buffer.concat(chunks) }) }),
        )
        res.writeHead(response.status, Object.fromEntries(response.headers))
        res.end(Buffer.from(await response.arrayBuffer()))
      })
    },
  }
}

/** Hono's own dashboard middleware, with the host's routes after it. */
function honoTarget(): ManagementTarget {
  return {
    name: 'hono',
    start: (auth, options) => {
      const app = new Hono()
      app.use(honoDashboard(auth, { ...options, basePath: '/settings', session: (c) => options.session((header) => c.req.header(header)) }))
      app.all('*', (c) => c.text('host 404', 404))
      return listen(getRequestListener(app.fetch))
    },
  }
}

/** Node's own `http` server with no framework (the reference server mounts the same). */
function nodeTarget(): ManagementTarget {
  return {
    name: 'node http',
    start: (auth, options) => {
      const handle = nodeDashboard(auth, {
        ...options,
        basePath: '/settings',
        session: (request) => options.session((header) => request.headers[header] as string | undefined),
      })
      return listen((request, response) => handle(request, response))
    },
  }
}

/** Every framework version the dashboard mounts on. */
export const DASHBOARD_TARGETS: readonly ManagementTarget[] = [
  expressTarget('express 4', express4, false),
  expressTarget('express 5', express5, false),
  expressTarget('express 5 with express.json()', express5, true),
  fastifyTarget('fastify 4', asFastify(fastify4)),
  fastifyTarget('fastify 5', fastify5),
  koaTarget('koa 2', Koa2),
  koaTarget('koa 3', Koa3),
  fetchTarget(),
  honoTarget(),
  nodeTarget(),
]
