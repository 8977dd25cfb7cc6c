#!/usr/bin/env bash
# Installs the Bun and Deno binaries that test/runtimes/ runs the fetch adapter under,
# from the npm registry (their platform packages ship the binary), into a scratch
# folder: .runtimes/ by default (git-ignored), or the folder given as $1. They are
# not devDependencies: a package for one platform would break `npm ci` on another.
# The tests find them there, or through BUN_BINARY / DENO_BINARY.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
folder=${1:-.runtimes}
BUN_VERSION=1.4.5
DENO_VERSION=2.9.6
mkdir -p "$folder"
npm install --prefix "$folder" --no-save --no-package-lock --no-audit --no-fund \
  "@oven/bun-linux-x64@$BUN_VERSION" "@deno/linux-x64-glibc@$DENO_VERSION" < /dev/null
"$folder/node_modules/@oven/bun-linux-x64/bin/bun" --version
"$folder/node_modules/@deno/linux-x64-glibc/deno" --version
