import { z } from 'zod'

/** The largest leak report body read, in bytes (SPEC §5.42): 1 MiB. */
export const MAX_LEAK_REPORT_BYTES = 1_048_576

/** The header that names the key a leak report is signed with (GitHub secret scanning partner format). */
export const LEAK_KEY_ID_HEADER = 'github-public-key-identifier'

/** The header that carries the signature: ECDSA P-256 with SHA-256, DER, base64, over the raw body. */
export const LEAK_SIGNATURE_HEADER = 'github-public-key-signature'

const text = z.string().max(65_536)

/**
 * A leak report body: a JSON array of `{ token, type, url?, source? }` (GitHub's
 * secret scanning partner format). `url` and `source` are optional, as in GitHub's own
 * sample; any other field is ignored.
 */
export const leakReportSchema = z.array(z.object({ token: text, type: text, url: text.optional(), source: text.optional() })).max(10_000)

/** One reported token, as parsed. */
export type LeakReportEntry = z.output<typeof leakReportSchema>[number]

/** One entry of the answer: the array GitHub expects back, in the order reported. */
export interface LeakReportAnswerEntry {
  /** The token as reported. */
  readonly token_raw: string
  /** The `type` as reported. */
  readonly token_type: string
  /** Whether it is a live passcode value, or one a leak report put out of service (a replay). */
  readonly label: 'true_positive' | 'false_positive'
}
