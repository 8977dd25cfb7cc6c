import Koa3 from 'koa'
import Koa2 from 'koa2'
import { describeHostileInput, koaTarget } from './hostile-input'

// The hostile-input suite (test/http/hostile-input.ts) through Koa 2 and 3.
describeHostileInput('Koa', [koaTarget('koa 2', false, Koa2), koaTarget('koa 3', true, Koa3)])
