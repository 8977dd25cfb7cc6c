import Fastify from 'fastify'
import Koa from 'koa'
import { describe, expect, it } from 'vitest'
import { connectHandler } from '../../src/express/index'
import { passcodeAuthPlugin } from '../../src/fastify/index'
import { InvalidOptionsError, createPasscodeAuth } from '../../src/index'
import { connectHandler as koaConnectHandler } from '../../src/koa/index'
import { memoryStore } from '../../src/memory'

/** The `cors` option is checked when an adapter is created, the same in each, and says what it expects. */

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

const makers: readonly [string, (cors: unknown) => Promise<unknown>][] = [
  ['express', async (cors) => connectHandler(auth, { cors } as never)],
  ['koa', async (cors) => new Koa().use(koaConnectHandler(auth, { cors } as never))],
  [
    'fastify',
    async (cors) =>
      Fastify()
        .register(passcodeAuthPlugin, { auth, cors } as never)
        .ready(),
  ],
]

describe.each(makers)('%s: the cors option', (_name, make) => {
  it('accepts allowed origins and a max age', async () => {
    await expect(make({ origins: ['https://dashboard.partner.example', 'http://localhost:5173'], maxAgeSeconds: 60 })).resolves.toBeDefined()
  })

  it.each<[unknown, string, RegExp]>([
    [['https://dashboard.partner.example'], 'cors', /must be \{ origins: \[\.\.\.\] \}/],
    [
      { origins: ['https://dashboard.partner.example/'] },
      'cors.origins.0',
      /must be an origin such as https:\/\/dashboard\.partner\.example \(scheme, host and port only/,
    ],
    [{ origins: ['*'] }, 'cors.origins.0', /must be an origin/],
    [{ origins: [], maxAgeSeconds: -1 }, 'cors.maxAgeSeconds', /from 0 to 86400/],
    [{ origins: [], methods: ['POST'] }, 'cors.methods', /unknown option/],
  ])('refuses %j, naming %s', async (cors, option, message) => {
    const error = await make(cors).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(InvalidOptionsError)
    expect((error as InvalidOptionsError).option).toBe(option)
    expect((error as Error).message).toMatch(message)
  })
})
