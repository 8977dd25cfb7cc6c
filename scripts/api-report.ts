import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from '@microsoft/api-extractor'
import { entries } from '../tsup.config'

/**
 * The public API of every entry of the package (SPEC §5.54), one report per entry in
 * api-reports/, made by API Extractor from the declarations `npm run build` bundles:
 * each export, with its type, as a user's type checker sees it.
 *
 *   npm run api:check    fails (printing the difference) when a report differs from the
 *                        code, or an entry has no report or a report no entry;
 *   npm run api:update   writes the reports; commit them with the change.
 *
 * A change to a public type thus shows in review as a change to api-reports/*.api.md.
 * The declarations are emitted into .api-report/ (ignored by git), not .declarations/, so
 * a concurrent `npm run build` is not disturbed; all entries share one TypeScript program.
 */

const root = fileURLToPath(new URL('..', import.meta.url))
/** Where the reports are committed. */
export const REPORT_FOLDER = join(root, 'api-reports')
// Not under node_modules/: API Extractor takes what is there for other packages' code.
const cache = join(root, '.api-report')
const declarations = join(cache, 'declarations')

type EntryName = keyof typeof entries

/** `express` → `passcode-auth/express`; `index` → `passcode-auth`. */
const subpathOf = (name: EntryName): string => (name === 'index' ? 'passcode-auth' : `passcode-auth/${name}`)
/** The report's file name: `passcode-auth-express.api.md`. */
export const reportFileOf = (name: EntryName): string => `${subpathOf(name).replace('/', '-')}.api.md`
/** `src/express/index.ts` → the emitted `…/declarations/express/index.d.ts`. */
const declarationOf = (source: string): string => join(declarations, source.replace(/^src\//, '').replace(/\.ts$/, '.d.ts'))

function configOf(name: EntryName): IConfigFile {
  return {
    projectFolder: root,
    mainEntryPointFilePath: declarationOf(entries[name]),
    compiler: {
      // The declarations only (src/ is checked by `npm run typecheck`); what they import
      // from dependencies and peers (express, fastify, @nestjs/*) is resolved from
      // node_modules and reported by name, as a user's project sees it.
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'ES2024.String', 'DOM', 'DOM.Iterable'],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          types: ['node'],
          strict: true,
          skipLibCheck: true,
        },
        files: [declarationOf(entries[name])],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: reportFileOf(name),
      reportFolder: REPORT_FOLDER,
      reportTempFolder: join(cache, 'reports'),
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: 'lf',
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
        // Every export is public: the package marks no release stages.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // A type the API uses without exporting it: a line in the report, seen in review.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        // Links in TSDoc are TypeDoc's concern (`npm run docs`), not the API's.
        'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
      },
      // The TSDoc dialect is TypeDoc's (`npm run docs`); API Extractor's stricter one would only add noise.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  }
}

/** Runs API Extractor on every entry; `update` writes the reports, otherwise compares. Returns the failures. */
export function apiReports(update: boolean): string[] {
  rmSync(declarations, { recursive: true, force: true })
  mkdirSync(REPORT_FOLDER, { recursive: true })
  // The declarations, exactly as the build's first step emits them (tsconfig.build.json).
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--project', 'tsconfig.build.json', '--outDir', declarations],
    {
      cwd: root,
      stdio: 'inherit',
    },
  )
  const names = Object.keys(entries) as EntryName[]
  const failures: string[] = []
  let compilerState: CompilerState | undefined
  for (const name of names) {
    const config = ExtractorConfig.prepare({
      configObject: configOf(name),
      configObjectFullPath: undefined,
      packageJsonFullPath: join(root, 'package.json'),
    })
    compilerState ??= CompilerState.create(config, { additionalEntryPoints: names.map((other) => declarationOf(entries[other])) })
    const result = Extractor.invoke(config, { compilerState, localBuild: update, printApiReportDiff: !update })
    if (!result.succeeded)
      failures.push(
        `${subpathOf(name)}: ${reportFileOf(name)} ${result.apiReportChanged ? 'differs from the code' : `(${result.errorCount} errors)`}`,
      )
  }
  const expected = new Set(names.map(reportFileOf))
  for (const file of readdirSync(REPORT_FOLDER)) {
    if (expected.has(file)) continue
    if (update) rmSync(join(REPORT_FOLDER, file))
    else failures.push(`api-reports/${file}: no entry of the package has this report (tsup.config.ts entries)`)
  }
  return failures
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2]
  if (mode !== 'check' && mode !== 'update') {
    console.error('usage: tsx scripts/api-report.ts check|update')
    process.exit(2)
  }
  const failures = apiReports(mode === 'update')
  if (failures.length > 0) {
    console.error(`\nThe public API differs from api-reports/:\n${failures.map((line) => `  ${line}`).join('\n')}`)
    console.error('If the change is intended, run `npm run api:update` and commit api-reports/ with it.')
    process.exit(1)
  }
  console.log(mode === 'update' ? `api-reports/: ${Object.keys(entries).length} reports written` : 'api-reports/: every report matches the code')
}
