import { describeHostileInput, honoTarget } from './hostile-input'

// The hostile-input suite (test/http/hostile-input.ts) through passcode-auth/hono (Hono 4) on `@hono/node-server`.
describeHostileInput('passcode-auth/hono', [honoTarget])
