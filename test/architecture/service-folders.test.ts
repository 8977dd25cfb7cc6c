import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ts } from '../helpers/typescript'

/**
 * Inside src/service/ (docs/architecture.md): each folder is one job and imports no
 * other folder; what jobs share is in the files at the root of src/service/, which
 * import no folder. Only the composition root, `create-passcode-auth.ts` (with
 * `passcode-auth.ts`, the type of what it returns, made of each job's API, and
 * `options.ts`, which composes each folder's own options), imports the folders and
 * hands each job what it uses.
 */
const SERVICE = fileURLToPath(new URL('../../src/service/', import.meta.url))
const COMPOSITION = new Set(['create-passcode-auth.ts', 'passcode-auth.ts', 'options.ts'])

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** `folder/` for a file in a folder of src/service/, `''` for one at its root, `undefined` outside it. */
function placeOf(path: string): string | undefined {
  const inService = relative(SERVICE, path)
  if (inService.startsWith('..')) return undefined
  const parts = inService.split(sep)
  return parts.length > 1 ? parts[0] : ''
}

/** Every import (type-only ones too) that runs sideways between service folders, or from a shared root file into a folder. */
function sidewaysImports(): string[] {
  const found: string[] = []
  for (const file of sourceFiles(SERVICE)) {
    const from = placeOf(file)!
    const name = relative(SERVICE, file)
    if (from === '' && COMPOSITION.has(name)) continue
    for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!specifier.startsWith('.')) continue
      const to = placeOf(resolve(dirname(file), specifier))
      if (to === undefined || to === '' || to === from) continue
      found.push(`${name} → ${specifier}`)
    }
  }
  return found
}

describe('src/service/ folders (docs/architecture.md)', () => {
  it('no folder imports another, and no shared root file imports a folder', () => {
    expect(sidewaysImports()).toEqual([])
  })

  it('finds the folders it checks', () => {
    const folders = new Set(sourceFiles(SERVICE).map((file) => placeOf(file)))
    for (const folder of ['verify', 'connect', 'limiter', 'notifier', 'passcodes', 'user-passcodes', 'usage', 'telemetry'])
      expect(folders).toContain(folder)
  })
})
