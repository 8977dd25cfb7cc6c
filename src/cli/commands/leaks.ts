import type { CommandSpec } from '../command'
import { CliError } from '../exit-codes'

/** A hint for the output: the prefix and the last 4 characters, never the value. */
function hintOf(value: string): string {
  const underscore = value.indexOf('_')
  return value.length < 12 ? '…' : `${underscore > 0 && underscore < 17 ? value.slice(0, underscore + 1) : ''}…${value.slice(-4)}`
}

/** Every value of the input: one or more per line, separated by whitespace. */
async function readValues(stdin: AsyncIterable<string | Uint8Array>): Promise<string[]> {
  let text = ''
  const decoder = new TextDecoder()
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
  text += decoder.decode()
  return [...new Set(text.split(/\s+/).filter((value) => value !== ''))]
}

const report: CommandSpec = {
  path: ['leaks', 'report'],
  summary: 'report passcode values found exposed, read from stdin: live ones are disabled and their admins emailed',
  options: {
    source: {
      type: 'string',
      value: '<text>',
      description: 'where they were found, for the email: "pastebin", "support ticket 123"',
      required: true,
    },
    url: { type: 'string', value: '<url>', description: 'the address where they were found, if there is one' },
  },
  groups: ['storage', 'mail'],
  examples: ['cat found.txt | passcode-auth leaks report --source "support ticket 123"', 'pbpaste | passcode-auth leaks report --source chat --json'],
  async run(context) {
    // Values come from stdin only: arguments end up in shell history and process lists.
    if (context.forwarded) {
      throw new CliError('ERR_USAGE', 'leaks report reads stdin and cannot be forwarded to a running serve: stop it, or use DATABASE_URL')
    }
    const values = await readValues(context.io.stdin ?? process.stdin)
    if (values.length === 0) throw new CliError('ERR_USAGE', 'no values on stdin: pipe the exposed values in, one per line')
    const { auth } = await context.runtime()
    const source = context.flags.source as string
    const url = typeof context.flags.url === 'string' ? context.flags.url : undefined
    const verdicts = await auth.leaks.report(values, { source, url })
    const results = verdicts.map((verdict) => ({ hint: hintOf(verdict.token), label: verdict.label }))
    const live = results.filter((result) => result.label === 'true_positive').length
    const lines = [
      `${values.length} value${values.length === 1 ? '' : 's'} reported, ${live} live (disabled or revoked now; already disabled ones are left as they are).`,
      ...results.map((result) => `  ${result.label.padEnd(14)} ${result.hint}`),
    ]
    context.output.result({ reported: values.length, live, results }, lines.join('\n'))
  },
}

/** `leaks report`. */
export const leaksCommands: readonly CommandSpec[] = [report]
