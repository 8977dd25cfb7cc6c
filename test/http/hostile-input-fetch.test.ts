import { describeHostileInput, fetchTarget } from './hostile-input'

// The hostile-input suite (test/http/hostile-input.ts) through passcode-auth/fetch on `@hono/node-server`.
describeHostileInput('passcode-auth/fetch', [fetchTarget])
