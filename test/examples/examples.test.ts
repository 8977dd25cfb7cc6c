import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { headersOfCurlLine, root } from '../helpers/cli-command'
import { bundleForNode, type NodeBundles } from '../helpers/node-bundle'

/**
 * examples/<framework>/server.ts: each starts as its own process, prints a curl line that
 * works, refuses a wrong passcode, and stops on SIGTERM. The Express one, which the README
 * names, runs as `npx tsx examples/express/server.ts` does (without npx); the others run
 * on their esbuild bundle with plain node, which does the same without tsx's start-up
 * (see node-bundle.ts).
 */

const THROUGH_TSX = 'express'
let bundles: Promise<NodeBundles> | undefined
const bundled = () =>
  (bundles ??= bundleForNode({
    fastify: path.join(root, 'examples/fastify/server.ts'),
    koa: path.join(root, 'examples/koa/server.ts'),
    nestjs: path.join(root, 'examples/nestjs/server.ts'),
  }))
afterAll(async () => {
  if (bundles !== undefined) (await bundles).remove()
})

async function start(framework: string) {
  const file = path.join('examples', framework, 'server.ts')
  const args = framework === THROUGH_TSX ? ['--import', 'tsx', file] : [(await bundled()).file(framework)]
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const deadline = Date.now() + 60_000
  while (!/^curl .*$/m.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${file} did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { child, exited, output: () => output, curl: /^curl .*$/m.exec(output)![0] }
}

describe.each(['express', 'fastify', 'koa', 'nestjs'])('examples/%s/server.ts', (framework) => {
  const file = path.join('examples', framework, 'server.ts')

  it('runs with one command, answers its curl line with 200 and a wrong passcode with 400', async () => {
    const server = await start(framework)
    try {
      const { url, headers } = headersOfCurlLine(server.curl)
      expect(server.output()).toMatch(new RegExp(`listening on http://127\\.0\\.0\\.1:\\d+`))
      const ok = await fetch(url, { headers })
      expect([ok.status, await ok.text()]).toEqual([200, '{"status":"success","message":"Authorised Successfully."}'])
      const wrong = await fetch(url, { headers: { ...headers, 'X-Service-Passcode': 'psc_wrong' } })
      expect([wrong.status, await wrong.text()]).toEqual([400, '{"status":"fail","error":"Invalid Credentials","code":400}'])
      const events = await fetch(url.replace(/\/v1\/connect\?.*$/, '/1/events.json'), { headers })
      expect(await events.json()).toMatchObject({ events: [], calledBy: { accountId: 'acc_1', kind: 'account', passcodeName: 'Acme' } })
    } finally {
      server.child.kill('SIGTERM')
    }
    expect(await server.exited).toBe(0)
  })

  it('says in its header how to run it', () => {
    expect(readFileSync(path.join(root, file), 'utf8')).toContain(`npx tsx examples/${framework}/server.ts`)
  })
})
