// The older majors are installed under npm aliases (express4, koa2) without types of
// their own; their public API is what the current @types packages describe, which is
// all these tests use. fastify4 ships its own types.
declare module 'express4' {
  import express = require('express')
  export = express
}

declare module 'koa2' {
  import Koa = require('koa')
  export = Koa
}
