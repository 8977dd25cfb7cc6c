import { existsSync } from 'node:fs'
import path from 'node:path'

/**
 * Whether a tool a test needs is here. Locally, a missing one makes the test skip (or
 * take a fallback) and say so in its title; under `CI=true`, where `.ci/run` installs
 * everything, it never skips: the test runs and fails.
 */
export interface Requirement {
  /** True only when the tool is missing and this is not CI. */
  readonly skip: boolean
  /** Where the tool is, when it is. */
  readonly path: string | undefined
  /** `name`, with "(skipped: …)" added when skipped. */
  title(name: string): string
}

/** Looks for an executable on `PATH`. */
export function commandAvailability(command: string): Requirement {
  const found = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, command))
    .find((file) => path.isAbsolute(file) && existsSync(file))
  const skip = found === undefined && process.env.CI !== 'true'
  return { skip, path: found, title: (name) => (skip ? `${name} (skipped: ${command} is not installed)` : name) }
}
