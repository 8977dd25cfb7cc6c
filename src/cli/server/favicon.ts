import type { Route } from './route'

// 16×16 PNG: a blue rounded square with a white keyhole (103 bytes). Browsers take a
// PNG at /favicon.ico by its content.
const ICON = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAALklEQVR42mNgAAL5+P3/ycEMlGiGGzK4DYABsgxAB0PQAIrDYJgYMESSMqXZGQDfCFmvDDbw3QAAAABJRU5ErkJggg==',
  'base64',
)

/**
 * `GET /favicon.ico`: what a browser asks for first, answered with a small icon (cached
 * for a day) instead of a 404 in the request log.
 *
 * @example
 * ```ts
 * const routes = [...referenceRoutes(runtime), favicon]
 * ```
 */
export const favicon: Route = {
  path: '/favicon.ico',
  methods: ['GET', 'HEAD'],
  handle(_request, response) {
    response.statusCode = 200
    response.setHeader('content-type', 'image/png')
    response.setHeader('content-length', ICON.length)
    response.setHeader('cache-control', 'public, max-age=86400')
    response.end(ICON)
  },
}
