/**
 * How a person runs `passcode-auth` where this one runs, for the hints the command
 * prints: `npx passcode-auth` where the package is installed (its `bin` is on npx's
 * path), `npm run cli --` in a clone of the repository (where no `passcode-auth` is on
 * any path: `npm start` and `node dist/cli.js` run it from the sources or the build).
 *
 * @param script - the file Node runs (`process.argv[1]`)
 * @example
 * ```ts
 * output.info(`More links: ${commandName()} dashboard link --account acc_demo`)
 * ```
 */
export function commandName(script: string | undefined = process.argv[1]): string {
  return script !== undefined && !/[\\/]node_modules[\\/]/.test(script) ? 'npm run cli --' : 'npx passcode-auth'
}
