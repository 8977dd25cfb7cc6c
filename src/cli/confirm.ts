import type { CommandContext } from './command'
import { CliError } from './exit-codes'

/** Reads one line from `stdin` (a terminal in line mode hands it over on Enter). */
async function readLine(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    if (text.includes('\n')) break
  }
  return text.split('\n')[0]!.trim()
}

/**
 * Makes a person confirm a command that cannot be taken back quietly (SPEC §5.45: enabling
 * a leaked passcode): `--yes` confirms it; otherwise, on a terminal (stdin and stderr), the
 * question is asked on stderr and only "y" or "yes" goes on; elsewhere (a script, a command
 * handed to a running `serve`) the command is refused with exit 2, saying to pass `--yes`.
 * A "no" ends it with exit 3, nothing changed.
 *
 * @example
 * ```ts
 * await confirmOrRefuse(context, `Enable "Acme" with its public value? ${LEAKED_ENABLE_WARNING}`)
 * ```
 */
export async function confirmOrRefuse(context: CommandContext, question: string): Promise<void> {
  if (context.flags.yes === true) return
  const { io } = context
  if (context.forwarded || io.stdinIsTTY !== true || io.stderrIsTTY !== true) {
    throw new CliError('ERR_USAGE', `${question} Pass --yes to confirm it.`, { setting: '--yes' })
  }
  io.stderr(`${question} [y/N] `)
  const answer = await readLine(io.stdin ?? process.stdin)
  if (!/^y(es)?$/i.test(answer)) throw new CliError('ERR_NOT_CONFIRMED', 'Not confirmed; nothing changed.')
}
