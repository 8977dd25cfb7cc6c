/**
 * How the service reaches webhook endpoints (SPEC §5.53): it checks a URL at
 * registration and sends each attempt. The Node implementation (`nodeWebhookSender`,
 * what `createPasscodeAuth` uses unless told otherwise) resolves the host, refuses
 * loopback, private, link-local, shared, multicast, reserved and metadata addresses
 * (every address the name resolves to), and connects to the address it checked.
 *
 * @example
 * ```ts
 * const sender: WebhookSender = {
 *   check: async () => ({ ok: true }),
 *   send: async (request) => ({ statusCode: 204, error: null }),
 * }
 * const auth = createPasscodeAuth({ store, webhooks: { sender } })
 * ```
 */
export interface WebhookSender {
  /**
   * Whether `url` may receive deliveries now: its host resolves, and to no refused
   * address unless `allowPrivateAddresses`. The reason, without secrets, when not.
   */
  check(url: string, policy: WebhookAddressPolicy): Promise<WebhookUrlCheck>
  /**
   * Sends one attempt: a POST of `body` with `headers`, without following redirects,
   * reading at most `maxResponseBytes` of the answer, within `timeoutMs`, to an address
   * the policy allows (checked again at each connection). Never throws for the
   * endpoint's failures: they are the result's `error`.
   */
  send(request: WebhookSendRequest): Promise<WebhookSendResult>
}

/** Which addresses a sender may connect to. */
export interface WebhookAddressPolicy {
  /** Allows loopback, private and the other refused addresses (tests, internal receivers). */
  readonly allowPrivateAddresses: boolean
}

/** The answer of {@link WebhookSender.check}. */
export type WebhookUrlCheck =
  | {
      /** The URL may be delivered to. */
      readonly ok: true
    }
  | {
      /** The URL is refused. */
      readonly ok: false
      /** Why, for the person who registered it (never an address's secret). */
      readonly reason: string
    }

/** One attempt, as {@link WebhookSender.send} takes it. */
export interface WebhookSendRequest extends WebhookAddressPolicy {
  /** The endpoint. */
  readonly url: string
  /** The Standard Webhooks headers and the content type. */
  readonly headers: Readonly<Record<string, string>>
  /** The body, exactly as signed. */
  readonly body: string
  /** The attempt's whole deadline, from the start to the answer read. */
  readonly timeoutMs: number
  /** At most this much of the answer is read. */
  readonly maxResponseBytes: number
}

/** How an attempt ended: the status when an answer came, and why it failed when it did. */
export interface WebhookSendResult {
  /** The HTTP status; `null` when no answer came. */
  readonly statusCode: number | null
  /** Why the attempt failed (a non-2xx status included), without secrets; `null` for a 2xx in time. */
  readonly error: string | null
}
