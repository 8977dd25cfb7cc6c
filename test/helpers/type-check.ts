import path from 'node:path'
import ts from 'typescript'

const root = path.resolve(import.meta.dirname, '../..')

/**
 * Type-checks `files` in this process with the repository's tsconfig.json (plus
 * `overrides`) and returns their diagnostics in tsc's plain format
 * (`file(line,col): error TSnnnn: …`, paths relative to the repository), empty when all is
 * well.
 *
 * Only the given files are checked, with everything they use from src/ and the packages:
 * the checker looks at a declaration of src/ only when a file needs its type. A whole
 * `tsc -p` would also check every file of src/ those files reach, which `npm run
 * typecheck` already does; repeated by each suite that checks documentation blocks or type
 * tests, that took about a minute of CPU per suite.
 */
export function typeCheckFiles(files: readonly string[], overrides: ts.CompilerOptions = {}): string {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), overrides, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    },
  })
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const program = ts.createProgram({ rootNames: files.map((file) => path.resolve(file)), options: config.options })
  const checked = files.map((file) => program.getSourceFile(path.resolve(file)))
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((source) => (source === undefined ? [] : [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)])),
  ]
  const missing = files.filter((_, index) => checked[index] === undefined)
  if (missing.length > 0) return `not in the program: ${missing.join(', ')}\n`
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  })
}
