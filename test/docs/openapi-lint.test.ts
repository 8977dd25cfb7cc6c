import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MANAGEMENT_OPENAPI_FILE } from '../../scripts/management-openapi'
import { OPENAPI_FILE } from '../../scripts/openapi'

/**
 * Both OpenAPI documents pass Redocly's linter (@redocly/cli, its `recommended` rules,
 * no configuration of ours) with no error and no warning: the structure OpenAPI 3.1
 * requires, every operation with an ID, a summary, a success and a 4xx, security on
 * every operation, no unused component. A child process (the command as a developer
 * runs it: `npx redocly lint docs/openapi.json docs/management-openapi.json`), so not a
 * unit test.
 */

const CLI = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url))

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number; readonly ignored: number }
  readonly problems: readonly { readonly ruleId: string; readonly message: string }[]
}

describe('the OpenAPI documents under Redocly lint', () => {
  it('have no error and no warning', async () => {
    const stdout = await promisify(execFile)(process.execPath, [CLI, 'lint', OPENAPI_FILE, MANAGEMENT_OPENAPI_FILE, '--format=json'], {
      // No telemetry or update check: the command needs no network.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).then(
      (result) => result.stdout,
      // An error exits non-zero: its report is the output all the same.
      (error: unknown) => (error as { stdout?: string }).stdout ?? '',
    )
    // One JSON report per document, one after the other.
    const reports = JSON.parse(`[${stdout.trim().replace(/\}\s*\{/g, '},{')}]`) as LintReport[]
    expect(reports).toHaveLength(2)
    for (const report of reports) {
      expect(report.problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([])
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 })
    }
  }, 60_000)
})
