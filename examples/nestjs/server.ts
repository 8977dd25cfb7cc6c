/**
 * A minimal NestJS host of passcode-auth, on Nest's Express platform (the Fastify one
 * works the same: pass `new FastifyAdapter()` to NestFactory.create). Run it from the
 * repository root with
 *   npx tsx examples/nestjs/server.ts
 * and paste the curl line it prints. PORT picks the port (default 3000).
 */
import { Controller, Get, Module, UseGuards } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { createPasscodeAuth } from 'passcode-auth'
import { memoryStore } from 'passcode-auth/memory'
import { PasscodeAuthGuard, PasscodeAuthModule, PasscodePrincipal, type Principal } from 'passcode-auth/nestjs'

const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })

@Controller('1')
class EventsController {
  // Bad credentials get the 400/401 body; good ones reach the handler.
  @Get('events.json')
  @UseGuards(PasscodeAuthGuard)
  events(@PasscodePrincipal() principal: Principal) {
    return { events: [], calledBy: principal }
  }
}

// The module answers GET /v1/connect?partner=… and lets the guard's refusals out byte for byte.
@Module({ imports: [PasscodeAuthModule.forRoot({ auth })], controllers: [EventsController] })
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] })

// A passcode to try it with. A real host creates passcodes from its dashboard.
const admin = { userId: 'u_admin', role: 'admin' } as const
const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })

await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1')
const url = await app.getUrl()
console.log(`NestJS example listening on ${url}`)
console.log(`curl -i -H 'X-Service-Account-Id: acc_1' -H 'X-Service-Passcode: ${value}' '${url}/v1/connect?partner=acme'`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)))
}
