import type { CommandSpec } from '../command'

/**
 * What to do with an older pepper (docs/security.md, rotating the pepper, step 4): it can
 * go at 0 under it and 0 under a pepper not known, since it may be what keyed those (SPEC §5.47).
 */
function olderAdvice(count: number, unknown: number): string {
  if (count > 0) return ' (values used since, and rotated values until their overlap ends)'
  if (unknown > 0) return ': keep it until the count under a pepper not known (below) is 0 too (it may have keyed those)'
  return ': it can be removed'
}

const peppersCommand: CommandSpec = {
  path: ['peppers'],
  // It counts every hash: both passcode tables are read whole (about 7 s at 10 million passcodes, docs/benchmarks.md).
  summary:
    'how many passcode hashes each pepper keys, a rotated value still in its overlap included, to know when an older one can go (reads every passcode: seconds at millions)',
  groups: ['storage'],
  examples: [
    'PASSCODE_AUTH_PEPPER=<new> PASSCODE_AUTH_PREVIOUS_PEPPERS=<old> passcode-auth peppers',
    'PASSCODE_AUTH_PEPPER=<old> PASSCODE_AUTH_NEXT_PEPPERS=<new> passcode-auth peppers',
  ],
  async run(context) {
    const runtime = await context.runtime()
    const report = await runtime.auth.pepperReport()
    const lines = [
      `${report.current} hash${report.current === 1 ? '' : 'es'} under the current pepper (PASSCODE_AUTH_PEPPER)`,
      ...report.older.map((count, index) => `${count} under PASSCODE_AUTH_PREVIOUS_PEPPERS entry ${index + 1}${olderAdvice(count, report.unknown)}`),
      // A next pepper verifies only (SPEC §5.34): its hashes come from instances a step ahead, or from before a step back.
      ...(report.next ?? []).map(
        (count, index) => `${count} under PASSCODE_AUTH_NEXT_PEPPERS entry ${index + 1} (verifies only; make it current on every instance next)`,
      ),
      `${report.unknown} under a pepper not known (written before schema version 3, or by a pepper no longer listed; each is labelled when it next verifies)`,
    ]
    context.output.result(report, lines.join('\n'))
  },
}

/** `peppers`. */
export const peppersCommands: readonly CommandSpec[] = [peppersCommand]
