#!/usr/bin/env node
import { runCli } from './run-cli'

/*
 * The `passcode-auth` command (package.json "bin"; built to dist/cli.js). Everything
 * is in runCli; this file only binds it to the process and exits with its code once
 * stdout and stderr are flushed (a pipe may still hold output when the code is known).
 */

// A reader that went away (a closed pipe) must not stop a server from shutting down cleanly.
process.stdout.on('error', () => undefined)
process.stderr.on('error', () => undefined)

// Node types `isTTY` as a boolean, but a stream that is not a terminal (a pipe, a file) has none.
const isTerminal = (stream: { isTTY?: boolean }) => stream.isTTY === true

const flush = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()))

void runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdinIsTTY: isTerminal(process.stdin),
  stdoutIsTTY: isTerminal(process.stdout),
  stderrIsTTY: isTerminal(process.stderr),
}).then(async (code) => {
  await Promise.all([flush(process.stdout), flush(process.stderr)])
  process.exit(code)
})
