import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * An OpenAPI 3.1 document as a judge of requests and answers, through Ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1, with ajv-formats for `date-time`): an independent
 * validator, not the zod schemas the document was generated from. Ajv is the JSON Schema
 * validator most of the ecosystem (Fastify, ESLint, Redocly) builds on, kept up to date
 * and complete for 2020-12; the OpenAPI-specific validators (openapi-response-validator)
 * know OpenAPI 3.0's schema dialect only. What OpenAPI adds around the schemas (which
 * operation, status, media type, parameter, header) is read here from the document.
 *
 * Each check returns what is wrong, one text per finding; none is a match.
 */

type Json = Record<string, any>

/** A request as it went out. */
export interface SentRequest {
  readonly method: string
  readonly url: URL
  readonly headers: Headers
  readonly body: string
}

/** An answer as it came back. */
export interface ReceivedAnswer {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/**
 * Headers a client acts on: when an answer carries one, the document must describe it
 * for that answer. The rest (`Content-Length`, the security headers) are transport.
 */
const SIGNIFICANT_HEADERS = [
  'allow',
  'cache-control',
  'content-disposition',
  'retry-after',
  'sunset',
  'ratelimit',
  'ratelimit-policy',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
]

const BASE = 'https://passcode-auth.invalid/openapi.json'

/** An operation of the document: where it is, and its objects. */
export interface DocumentedOperation {
  readonly method: string
  readonly path: string
  readonly operationId: string
  readonly operation: Json
  readonly pathItem: Json
}

/** Every operation of `document`, in its order. */
export function documentedOperations(document: Json): DocumentedOperation[] {
  return Object.entries(document.paths as Json).flatMap(([path, pathItem]) =>
    Object.entries(pathItem as Json)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operationId: (operation as Json).operationId as string,
        operation,
        pathItem,
      })),
  )
}

/**
 * Reads a text parameter or header as the JSON value its schema types: decimal digits
 * as a number where the schema is an integer or a number (as clients write them).
 */
function typed(value: string, schema: Json): unknown {
  const type = schema.type
  return (type === 'integer' || type === 'number') && /^-?[0-9]+$/.test(value) ? Number(value) : value
}

export function openApiChecker(document: Json, basePath: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false })
  addFormats(ajv)
  const absolute = (schema: unknown): Json => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`))
  ajv.addSchema({ $id: BASE, $defs: absolute(document.components?.schemas ?? {}) })
  const compiled = new Map<string, ValidateFunction>()
  const validate = (schema: Json, value: unknown): string[] => {
    const key = JSON.stringify(schema)
    let check = compiled.get(key)
    if (check === undefined) compiled.set(key, (check = ajv.compile(absolute(schema))))
    if (check(value)) return []
    return (check.errors ?? []).map((error) => `${error.instancePath || '(value)'} ${error.message ?? ''}`.trim())
  }
  const resolve = (object: Json): Json => {
    if (typeof object.$ref !== 'string') return object
    const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(object.$ref) ?? []
    const target = (document.components?.[kind!] as Json | undefined)?.[name!] as Json | undefined
    if (target === undefined) throw new Error(`unresolved ${object.$ref}`)
    return resolve(target)
  }
  const operations = documentedOperations(document)
  const templates = operations.map(({ path }) => path)

  /** The operation a request is for, with its path parameters, if the document has it. */
  function operationOf(method: string, pathname: string): { operation: DocumentedOperation; params: Record<string, string> } | undefined {
    if (!pathname.startsWith(basePath)) return undefined
    const relative = pathname.slice(basePath.length)
    for (const template of new Set(templates)) {
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)
      const match = new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]*)')}$`).exec(relative)
      if (match === null) continue
      const operation = operations.find((candidate) => candidate.path === template && candidate.method === method.toUpperCase())
      if (operation === undefined) continue
      return { operation, params: Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)])) }
    }
    return undefined
  }

  return {
    operationOf,

    /** What the request's parameters and body break of the operation's request schemas. */
    requestViolations(request: SentRequest): string[] {
      const found = operationOf(request.method, request.url.pathname)
      if (found === undefined) return [`${request.method} ${request.url.pathname} is not an operation of the document`]
      const { operation, pathItem } = found.operation
      const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])].map(resolve)
      const violations: string[] = []
      for (const parameter of parameters) {
        const schema = parameter.schema as Json
        let value: unknown
        if (parameter.in === 'path') value = found.params[parameter.name as string]
        else if (parameter.in === 'header') value = request.headers.get(parameter.name as string) ?? undefined
        else if (parameter.in === 'query') {
          const values = request.url.searchParams.getAll(parameter.name as string)
          value = values.length === 0 ? undefined : schema.type === 'array' || values.length > 1 ? values : values[0]
        }
        if (value === undefined) {
          if (parameter.required === true) violations.push(`${parameter.in} parameter ${parameter.name} is required`)
          continue
        }
        const json = Array.isArray(value) ? value.map((item: string) => typed(item, (schema.items ?? {}) as Json)) : typed(value as string, schema)
        for (const error of validate(schema, json)) violations.push(`${parameter.in} parameter ${parameter.name}: ${error}`)
      }
      const known = new Set(parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name as string))
      for (const name of new Set(request.url.searchParams.keys()))
        if (!known.has(name)) violations.push(`query parameter ${name} is not one of the operation's`)
      const requestBody = operation.requestBody === undefined ? undefined : resolve(operation.requestBody as Json)
      if (requestBody !== undefined) {
        const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
        const media = (requestBody.content as Json)[type] as Json | undefined
        if (request.body === '') {
          if (requestBody.required === true) violations.push('the body is required')
        } else if (media === undefined) violations.push(`the body's media type ${type || '(none)'} is not the operation's`)
        else {
          let body: unknown
          try {
            body = JSON.parse(request.body)
          } catch {
            violations.push('the body is not JSON')
            return violations
          }
          for (const error of validate(media.schema as Json, body)) violations.push(`body ${error}`)
        }
      }
      return violations
    },

    /** What the document does not describe of an answer: its status, a header that matters, its media type or its body. */
    answerMismatches(request: SentRequest, answer: ReceivedAnswer): string[] {
      const found = operationOf(request.method, request.url.pathname)
      if (found === undefined) return [`${request.method} ${request.url.pathname} is not an operation of the document`]
      const responses = found.operation.operation.responses as Json
      const described = responses[String(answer.status)] as Json | undefined
      if (described === undefined) return [`status ${answer.status} is not documented: ${answer.body}`]
      return this.responseMismatches(described, answer)
    },

    /** What a Response Object of the document (or a reference to one) does not describe of an answer. */
    responseMismatches(described: Json, answer: ReceivedAnswer): string[] {
      const response = resolve(described)
      const mismatches: string[] = []
      const headers = Object.fromEntries(
        Object.entries((response.headers ?? {}) as Json).map(([name, header]) => [name.toLowerCase(), resolve(header as Json)]),
      )
      for (const [name, header] of Object.entries(headers)) {
        const value = answer.headers.get(name)
        if (value === null) {
          if (header.required === true) mismatches.push(`header ${name} is required`)
          continue
        }
        for (const error of validate(header.schema as Json, typed(value, header.schema as Json)))
          mismatches.push(`header ${name}: ${value}: ${error}`)
      }
      for (const name of SIGNIFICANT_HEADERS) {
        if (answer.headers.has(name) && headers[name] === undefined) mismatches.push(`header ${name} is not documented for ${answer.status}`)
      }
      const content = response.content as Json | undefined
      if (content === undefined) {
        if (answer.body !== '') mismatches.push(`a body where none is documented: ${answer.body.slice(0, 200)}`)
        return mismatches
      }
      const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
      const media = content[type] as Json | undefined
      if (media === undefined) return [...mismatches, `media type ${type || '(none)'} is not documented for ${answer.status}`]
      if (type === 'application/json') {
        for (const error of validate(media.schema as Json, JSON.parse(answer.body))) mismatches.push(`body ${error}: ${answer.body.slice(0, 300)}`)
      } else if (type === 'application/x-ndjson') {
        if (answer.body !== '' && !answer.body.endsWith('\n')) mismatches.push('the last JSON line does not end with \\n')
        const lines = answer.body
          .split('\n')
          .slice(0, -1)
          .map((line) => JSON.parse(line) as unknown)
        for (const error of validate(media.schema as Json, lines)) mismatches.push(`lines ${error}`)
        for (const line of lines) for (const error of validate(media['x-oai-itemSchema'] as Json, line)) mismatches.push(`line ${error}`)
      } else mismatches.push(`no check for the media type ${type}`)
      return mismatches
    },
  }
}

/** What {@link openApiChecker} returns. */
export type OpenApiChecker = ReturnType<typeof openApiChecker>
