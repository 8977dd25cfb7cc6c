import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { bundleForNode, type NodeBundles } from '../helpers/node-bundle'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const frameworks = ['express', 'fastify', 'koa', 'hono', 'fetch']

// All five bundled at once, each run in its own node process (see node-bundle.ts).
let bundles: Promise<NodeBundles> | undefined
const bundled = () =>
  (bundles ??= bundleForNode(Object.fromEntries(frameworks.map((framework) => [framework, path.join(import.meta.dirname, `${framework}-quickstart.ts`)]))))
afterAll(async () => {
  if (bundles !== undefined) (await bundles).remove()
})

/**
 * The framework quick starts of README.md, kept as files so that they type-check
 * (`tsc -p .`) and run here as written: package names resolve to src/ through the
 * tsconfig `paths`, as under tsx.
 */
describe.each(frameworks)('the %s quick start', (framework) => {
  const file = path.join(import.meta.dirname, `${framework}-quickstart.ts`)

  it('runs, answers connect with 200 and shows the protected route who called', async () => {
    const { stdout } = await run(process.execPath, [(await bundled()).file(framework)], { cwd: root, timeout: 60_000 })
    const [connect, events, ...rest] = stdout.trim().split('\n')
    expect(connect).toBe('200 {"status":"success","message":"Authorised Successfully."}')
    expect(events).toMatch(/^200 \{"events":\[\],"calledBy":\{"accountId":"acc_1","kind":"account","passcodeId":"[^"]+","passcodeName":"Acme"\}\}$/)
    expect(rest).toEqual([])
  })

  it('imports the package by its public names only, and stays short', () => {
    const source = readFileSync(file, 'utf8')
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1])
    expect(imports.filter((name) => name?.startsWith('.'))).toEqual([])
    expect(imports).toContain(`passcode-auth/${framework}`)
    expect(source.split('\n').length).toBeLessThanOrEqual(40)
  })
})
