import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)

/** Type-checks `files` with the repository's compiler options; returns tsc's diagnostics. */
async function typeCheck(files: string[]): Promise<string> {
  const directory = mkdtempSync(path.join(tmpdir(), 'passcode-auth-types-'))
  try {
    const config = path.join(directory, 'tsconfig.json')
    writeFileSync(
      config,
      JSON.stringify({
        extends: path.join(root, 'tsconfig.json'),
        compilerOptions: { typeRoots: [path.join(root, 'node_modules/@types')] },
        include: files,
      }),
    )
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc')
    return await run(process.execPath, [tsc, '--noEmit', '-p', config], { cwd: root, timeout: 120_000 }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string }) => error.stdout ?? String(error),
    )
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

describe('type tests (compiled, never run)', () => {
  it('adapters.ts compiles: the principal is typed on req, request and ctx.state, and misuse does not compile', async () => {
    expect(await typeCheck([path.join(import.meta.dirname, 'adapters.ts')])).toBe('')
  }, 150_000) // a whole tsc run over the project's types: tens of seconds on a busy 2-core machine
})
