import path from 'node:path'
import type TS from 'typescript'
import { ts } from './typescript'

const root = path.resolve(import.meta.dirname, '../..')

/**
 * Type-checks `files` in this process, in one program, with the repository's
 * tsconfig.json, and returns each file's diagnostics apart, in tsc's plain format
 * (`file(line,col): error TSnnnn: …`, paths relative to the repository), empty when all
 * is well: a test per file fails only on its own file. `program` holds the diagnostics
 * that belong to no one file (options, globals), or the files missing from the program.
 *
 * Only the given files are checked, with everything they use from src/ and the packages:
 * the checker looks at a declaration of src/ only when a file needs its type. A whole
 * `tsc -p` would also check every file of src/ those files reach, which `npm run
 * typecheck` already does. Parsing and binding the standard library, @types/node and the
 * frameworks' types, and checking the types of src/ the files share, is most of a
 * check's CPU: check files together, in one call, rather than one call each.
 */
export function typeCheckEachFile(files: readonly string[]): { program: string; each: Map<string, string> } {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const host = ts.createCompilerHost(config.options)
  // As tsc does (since TypeScript 5.3): JSDoc comments of .ts and .d.ts files are parsed
  // only where they change a diagnostic, not for the editor's hover texts.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors
  const program = ts.createProgram({ rootNames: files.map((file) => path.resolve(file)), options: config.options, host })
  const format = (diagnostics: readonly TS.Diagnostic[]) =>
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (file) => file,
      getCurrentDirectory: () => root,
      getNewLine: () => '\n',
    })
  const missing = files.filter((file) => program.getSourceFile(path.resolve(file)) === undefined)
  const each = new Map<string, string>()
  for (const file of files) {
    const source = program.getSourceFile(path.resolve(file))
    each.set(
      file,
      source === undefined
        ? `${file}: not in the program\n`
        : format([...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]),
    )
  }
  const global = format([...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()])
  return { program: missing.length > 0 ? `${global}not in the program: ${missing.join(', ')}\n` : global, each }
}
