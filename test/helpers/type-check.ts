import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
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

/**
 * Writes documentation blocks as modules for {@link typeCheckEachFile}, and returns their
 * files (`node_modules/.cache/doc-blocks/<suite>/block-<n>.ts`, in the order of
 * `blocks`). Each block is a module of its own, its name on the first line, so that
 * top-level await and its own imports work as in a host's file. Its top-level
 * declarations are exported: a reader's program uses what a block declares elsewhere, so
 * an unused one is no error, while an unused import or an unused local inside a function
 * is, as in any file of the repository.
 */
export function blockModules(suite: string, blocks: readonly { name: string; code: string }[]): string[] {
  const dir = path.join(root, 'node_modules/.cache/doc-blocks', suite)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return blocks.map((block, index) => {
    const file = path.join(dir, `block-${index}.ts`)
    writeFileSync(file, `// ${block.name}\n${block.code}\n${exportsOf(block.code)}\n`)
    return file
  })
}

/** An `export` statement for the top-level declarations of `code` that it does not export itself. */
function exportsOf(code: string): string {
  const source = ts.createSourceFile('block.ts', code, ts.ScriptTarget.Latest)
  const values: string[] = []
  const types: string[] = []
  const bindings = (name: TS.BindingName): string[] =>
    ts.isIdentifier(name) ? [name.text] : name.elements.flatMap((element) => (ts.isBindingElement(element) ? bindings(element.name) : []))
  for (const statement of source.statements) {
    if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue
    if (ts.isVariableStatement(statement)) values.push(...statement.declarationList.declarations.flatMap((declaration) => bindings(declaration.name)))
    else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) types.push(statement.name.text)
    else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) &&
      statement.name !== undefined
    )
      values.push(statement.name.text)
  }
  return `export { ${values.join(', ')} }${types.length > 0 ? `\nexport type { ${types.join(', ')} }` : ''}`
}
