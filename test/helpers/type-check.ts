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
  const { program, each } = typeCheckEachFile(files, overrides)
  return program + [...each.values()].join('')
}

/**
 * {@link typeCheckFiles}, with the diagnostics of each file apart: one program for all the
 * files (parsing and binding the standard library, @types/node and the frameworks' types
 * takes most of the CPU of a check, and is done once), and each file's own diagnostics,
 * so that a test per file fails only on its own file. `program` holds the diagnostics
 * that belong to no one file (options, globals), or the files missing from the program.
 */
export function typeCheckEachFile(files: readonly string[], overrides: ts.CompilerOptions = {}): { program: string; each: Map<string, string> } {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), overrides, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    },
  })
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const program = ts.createProgram({ rootNames: files.map((file) => path.resolve(file)), options: config.options, host: compilerHost(config.options) })
  const format = (diagnostics: readonly ts.Diagnostic[]) =>
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (file) => file,
      getCurrentDirectory: () => root,
      getNewLine: () => '\n',
    })
  const missing = files.filter((file) => program.getSourceFile(path.resolve(file)) === undefined)
  const each = new Map<string, string>()
  for (const file of files) {
    const source = program.getSourceFile(path.resolve(file))
    each.set(file, source === undefined ? `${file}: not in the program\n` : format([...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]))
  }
  const global = format([...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()])
  return { program: missing.length > 0 ? `${global}not in the program: ${missing.join(', ')}\n` : global, each }
}

/**
 * Files of node_modules/ (the standard library's included) parsed and bound by an earlier
 * program of this process, by path and parsing options: they do not change during a run,
 * and parsing and binding them is most of a check's CPU. Programs share source files as
 * the language service does; each program's checker keeps its own types.
 */
const packageFiles = new Map<string, ts.SourceFile>()

function compilerHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options)
  // As tsc does (since TypeScript 5.3): JSDoc comments of .ts and .d.ts files are parsed
  // only where they change a diagnostic, not for the editor's hover texts.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors
  // Options that change only which diagnostics are reported, not how a file is parsed or bound.
  const { noUnusedLocals: _locals, noUnusedParameters: _parameters, typeRoots: _typeRoots, ...bindingOptions } = options
  const optionsKey = JSON.stringify(bindingOptions)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    // node_modules/.cache/ holds files the tests write, the documentation's blocks.
    if (!fileName.includes('/node_modules/') || fileName.includes('/node_modules/.cache/')) return getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile)
    const key = `${fileName}\0${JSON.stringify(languageVersionOrOptions)}\0${optionsKey}`
    let file = shouldCreateNewSourceFile === true ? undefined : packageFiles.get(key)
    if (file === undefined) {
      file = getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile)
      if (file !== undefined) packageFiles.set(key, file)
    }
    return file
  }
  return host
}
