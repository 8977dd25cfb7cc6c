#!/usr/bin/env bash
# `npm run release:dry-run`: every step of docs/releasing.md that can run without
# publishing, on this checkout, without changing it. .ci/run calls it.
# 1. `changeset status`: the versions `changeset version` would cut (passcode-auth and
#    @passcode-auth/client move together, the "fixed" group of .changeset/config.json);
#    fails when a changed package has no changeset.
# 2. One build of each package, then `npm pack` of both (no prepack: built once), into a
#    scratch folder: the tarballs `changeset publish` would upload.
# 3. publint --strict and attw (the node16 profile: ESM and CommonJS consumers) on each
#    tarball, the same checks `npm run check:packaging` makes by packing again.
# Nothing is versioned, written to CHANGELOG.md, tagged or published.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
step() { printf '\n==> %s\n' "$*"; }
packed=$(mktemp -d)
trap 'rm -rf "$packed"' EXIT

step "changeset status"
# Against main (the base branch) when the clone has it; a checkout of one commit has no
# branch to compare with, and then only lists the pending changesets.
if git rev-parse --verify --quiet main > /dev/null; then
  npx changeset status --verbose < /dev/null
else
  npx changeset status --verbose --since HEAD < /dev/null
fi

step "build both packages"
npm run build < /dev/null
npm run build --workspace @passcode-auth/client < /dev/null

step "npm pack (both packages)"
npm pack --ignore-scripts --pack-destination "$packed" < /dev/null
npm pack --ignore-scripts --pack-destination "$packed" --workspace @passcode-auth/client < /dev/null

for tarball in "$packed"/*.tgz; do
  step "publint --strict $(basename "$tarball")"
  npx publint run --strict "$tarball" < /dev/null
  step "attw --profile node16 $(basename "$tarball")"
  npx attw --profile node16 "$tarball" < /dev/null
done
step "release dry run passed: nothing was versioned or published"
