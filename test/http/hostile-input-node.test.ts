import { describeHostileInput, nodeTarget } from './hostile-input'

// The hostile-input suite (test/http/hostile-input.ts), its whole corpus, through the layer every adapter shares: Node's own `http` server, no framework.
describeHostileInput('Node http', [nodeTarget])
