#!/usr/bin/env bash
# npm's `prepare`: `npm ci` and `npm install` build the project (npm run build), so that
# `npx stackwarden …` works straight away.
#
# One case builds nothing: npm exec's own install of this project. `npx stackwarden` in the project
# finds the command in this package.json's `bin`, so libnpmexec installs the project into npx's cache
# (~/.npm/_npx/<hash of its path>) as a link to this very directory, once per clone, and npm runs a
# link's `prepare` (npm_command=exec): the whole build again, ~30 s on the first call. The link
# runs the build already in dist/, so when that build is no older than any input it is kept as it
# is (a `find` of the inputs, well under a second). A node_modules/.bin link to bin/stackwarden.js
# would not help: npm exec looks at the package's own `bin` before node_modules/.bin.
#
# `npm pack` (and `npm publish`) run `prepare` too: the tarball ships dist/, so it must be built, and a
# build no older than any input (`npm ci` made it) is packed as it is rather than built a second time.
# A project that installs the tarball never runs this: npm runs `prepare` only for installs from git or
# a local directory, and the package ships no scripts/prepare.sh (its `files`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Written last by `npm run build` (after tsc), so it exists only when a build has finished.
STAMP=dist/src/emulator/seed-validator.generated.js

build_is_current() {
	[ -f "$STAMP" ] || return 1
	local newer
	newer="$(find src providers policies stacks bench campaigns \( -name '*.ts' -o -name '*.json' \) -newer "$STAMP" -print -quit)"
	[ -z "$newer" ] && [ -z "$(find tsconfig.json package.json package-lock.json -newer "$STAMP" -print -quit)" ]
}

case "${npm_command-}" in
exec | pack | publish)
	if build_is_current; then
		printf 'prepare: npm %s, and the build (dist/) is current: nothing to rebuild\n' "$npm_command" >&2
		exit 0
	fi
	;;
esac
exec npm run build
