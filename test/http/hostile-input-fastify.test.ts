import fastify5 from 'fastify'
import fastify4 from 'fastify4'
import { describeHostileInput, fastifyTarget } from './hostile-input'

// fastify4's instance type is its own package's; at run time the plugin works on both.
const asFastify = (factory: unknown) => factory as typeof fastify5

// The hostile-input suite (test/http/hostile-input.ts) through Fastify 4 and 5.
describeHostileInput('Fastify', [fastifyTarget('fastify 4', false, asFastify(fastify4)), fastifyTarget('fastify 5', true, fastify5)])
