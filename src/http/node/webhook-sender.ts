import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http'
import type { LookupAddress } from 'node:dns'
import type { WebhookSendRequest, WebhookSendResult, WebhookSender, WebhookUrlCheck } from '../../ports/webhook-sender'
import { addressRules, refusedCategory, type AddressRules } from './webhook-addresses'

/**
 * Resolves a host name to every address it has (`dns.lookup` with `all: true` by
 * default); tests give their own, to answer as a DNS rebinding attack would.
 */
export type WebhookLookup = (hostname: string) => Promise<readonly LookupAddress[]>

/** Options of {@link nodeWebhookSender}. */
export interface NodeWebhookSenderOptions {
  /** How host names are resolved. @default node:dns `lookup(hostname, { all: true })` */
  lookup?: WebhookLookup
  /** Connections kept open per endpoint host, to send the next attempts on. @default 64 */
  maxSockets?: number
}

/** Node's built-ins, loaded when the sender first runs (so that importing the root entry loads none, as on edge runtimes). */
function builtins() {
  const { process } = globalThis
  return {
    http: process.getBuiltinModule('node:http'),
    https: process.getBuiltinModule('node:https'),
    net: process.getBuiltinModule('node:net'),
    dns: process.getBuiltinModule('node:dns'),
  }
}

/** Refused by the address policy: the message says which category, never a secret. */
class RefusedAddress extends Error {
  constructor(readonly category: string) {
    super(`The endpoint resolves to a refused address (${category})`)
  }
}

/**
 * The Node sender of webhooks (SPEC §5.53), what `createPasscodeAuth` uses on Node unless
 * told otherwise: `node:http`/`node:https` over kept-alive connections. Each new
 * connection resolves the host again, checks every address it has and connects to the
 * address it checked (Node's `lookup` option, so the `Host` header and TLS name stay the
 * URL's): a name that resolved to a public address at registration and now resolves to
 * a private one (DNS rebinding) reaches nothing. Redirects are not followed; at most
 * `maxResponseBytes` of an answer are read; the whole attempt has `timeoutMs`.
 *
 * @param options - see {@link NodeWebhookSenderOptions}
 * @example
 * ```ts
 * // What `createPasscodeAuth` of the root entry does on Node when `webhooks.sender` is left out:
 * const auth = createService({ ...options, webhooks: { ...options.webhooks, sender: nodeWebhookSender() } })
 * ```
 */
export function nodeWebhookSender(options: NodeWebhookSenderOptions = {}): WebhookSender {
  let loaded: { modules: ReturnType<typeof builtins>; rules: AddressRules; agents: Record<'http:' | 'https:', unknown> } | undefined
  const load = () => {
    if (loaded === undefined) {
      const modules = builtins()
      const maxSockets = options.maxSockets ?? 64
      loaded = {
        modules,
        rules: addressRules(modules.net.BlockList),
        agents: {
          'http:': new modules.http.Agent({ keepAlive: true, maxSockets }),
          'https:': new modules.https.Agent({ keepAlive: true, maxSockets }),
        },
      }
    }
    return loaded
  }
  const resolve = (hostname: string): Promise<readonly LookupAddress[]> =>
    options.lookup?.(hostname) ?? load().modules.dns.promises.lookup(hostname, { all: true, verbatim: true })

  /** Every address of `hostname`, all allowed, or the reason one is not. */
  async function checkedAddresses(hostname: string, allowPrivate: boolean): Promise<readonly LookupAddress[]> {
    const { net } = load().modules
    const literal = net.isIP(hostname)
    const addresses = literal === 0 ? await resolve(hostname) : [{ address: hostname, family: literal }]
    if (addresses.length === 0) throw new Error('The endpoint host has no address')
    if (!allowPrivate) {
      for (const { address, family } of addresses) {
        const category = refusedCategory(load().rules, address, family === 4 ? 4 : 6)
        if (category !== undefined) throw new RefusedAddress(category)
      }
    }
    return addresses
  }

  const hostOf = (url: URL): string => (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname)

  return {
    async check(url, policy): Promise<WebhookUrlCheck> {
      try {
        await checkedAddresses(hostOf(new URL(url)), policy.allowPrivateAddresses)
        return { ok: true }
      } catch (error) {
        if (error instanceof RefusedAddress)
          return { ok: false, reason: `must not resolve to a loopback, private, link-local, reserved or metadata address (${error.category})` }
        return { ok: false, reason: 'must have a host name that resolves' }
      }
    },

    send(request: WebhookSendRequest): Promise<WebhookSendResult> {
      const { modules, agents } = load()
      const url = new URL(request.url)
      const hostname = hostOf(url)
      const secure = url.protocol === 'https:'
      return new Promise<WebhookSendResult>((settle) => {
        let done = false
        let outgoing: ClientRequest | undefined
        const finish = (result: WebhookSendResult): void => {
          if (done) return
          done = true
          clearTimeout(timer)
          settle(result)
        }
        const timer = setTimeout(() => {
          finish({ statusCode: null, error: `No answer within ${request.timeoutMs} ms` })
          outgoing?.destroy()
        }, request.timeoutMs)
        // A literal address is not looked up by Node: it is checked here, and the lookup below checks names.
        const literal = modules.net.isIP(hostname)
        const lookup: RequestOptions['lookup'] = (name, lookupOptions, callback) => {
          checkedAddresses(name, request.allowPrivateAddresses).then(
            (addresses) => {
              const wanted =
                lookupOptions.family === 4 || lookupOptions.family === 6 ? addresses.filter((a) => a.family === lookupOptions.family) : addresses
              if (lookupOptions.all === true) callback(null, wanted as LookupAddress[])
              else callback(null, wanted[0]?.address ?? '', wanted[0]?.family ?? 4)
            },
            (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
          )
        }
        const start = async (): Promise<void> => {
          if (literal !== 0) await checkedAddresses(hostname, request.allowPrivateAddresses)
          const module = secure ? modules.https : modules.http
          outgoing = module.request({
            method: 'POST',
            protocol: url.protocol,
            host: hostname,
            port: url.port === '' ? undefined : Number(url.port),
            path: `${url.pathname}${url.search}`,
            headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
            agent: agents[secure ? 'https:' : 'http:'] as RequestOptions['agent'],
            ...(literal === 0 && { lookup }),
          })
          outgoing.on('response', (response: IncomingMessage) => {
            const statusCode = response.statusCode ?? null
            const ok = statusCode !== null && statusCode >= 200 && statusCode < 300
            const error = ok
              ? null
              : statusCode !== null && statusCode >= 300 && statusCode < 400
                ? `Answered ${statusCode}: redirects are not followed`
                : `Answered ${statusCode ?? 'without a status'}`
            let read = 0
            response.on('data', (chunk: Buffer) => {
              read += chunk.length
              // Enough read: the status stands, the rest of the answer is not wanted.
              if (read > request.maxResponseBytes) {
                finish({ statusCode, error })
                response.destroy()
              }
            })
            response.on('end', () => finish({ statusCode, error }))
            response.on('error', () => finish({ statusCode, error: error ?? 'The answer was cut off' }))
            response.on('close', () => finish({ statusCode, error: response.complete ? error : (error ?? 'The answer was cut off') }))
          })
          outgoing.on('error', (failure: NodeJS.ErrnoException) => {
            finish({
              statusCode: null,
              error: failure instanceof RefusedAddress ? failure.message : `Connection failed (${failure.code ?? 'error'})`,
            })
          })
          outgoing.end(request.body)
        }
        start().catch((failure: unknown) => {
          finish({ statusCode: null, error: failure instanceof RefusedAddress ? failure.message : 'The endpoint host does not resolve' })
        })
      })
    },
  }
}
