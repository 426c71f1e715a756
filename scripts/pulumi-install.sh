#!/usr/bin/env bash
# npm run pulumi:install
#
# Builds the Pulumi CLI, a Node.js language host and Pulumi YAML's language host
# from the Go module proxy (scripts/pulumi-cli, see its README.md), at the version
# of @pulumi/pulumi in node_modules, into a cache directory outside the repository:
#   ${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}/pulumi-vX.Y.Z/bin
# and writes the plugin shims pulumi-resource-pulumi-nodejs and
# pulumi-analyzer-policy beside the binaries.
#
# Progress goes to stderr; the last line on stdout is the bin directory, so
#   export PATH="$(npm run -s pulumi:install | tail -n1):$PATH"
# Reruns reuse the cache (well under a second). STACKWARDEN_PULUMI_REBUILD=1
# forces a rebuild.
set -euo pipefail

log() { printf 'pulumi-install: %s\n' "$*" >&2; }
die() { printf 'pulumi-install: error: %s\n' "$*" >&2; exit 1; }

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=lib/progress.sh
. "$(dirname "$SELF")/lib/progress.sh"
# shellcheck source=lib/cache-slot.sh
. "$(dirname "$SELF")/lib/cache-slot.sh"
PROGRESS_NAME=pulumi-install
ROOT=$(dirname "$(dirname "$SELF")")
MODDIR="$ROOT/scripts/pulumi-cli"
YAMLDIR="$MODDIR/pulumi-language-yaml" # a module of its own (see the README)
SDK_PKG="$ROOT/node_modules/@pulumi/pulumi/package.json"

[ -f "$SDK_PKG" ] || die "$SDK_PKG is missing; run npm install first"
command -v node >/dev/null 2>&1 || die "node is not on PATH"
VERSION=$(node -p 'require(process.argv[1]).version' "$SDK_PKG")
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "unexpected @pulumi/pulumi version '$VERSION' in $SDK_PKG"

SLOT="pulumi-v$VERSION"
DEST="$CACHE_ROOT/$SLOT"
BIN="$DEST/bin"

# Everything the binaries are built from; a change triggers a rebuild.
stamp() {
	{
		printf 'version=%s\n' "$VERSION"
		cat "$MODDIR/go.mod" "$MODDIR/go.sum" "$MODDIR"/pulumi-language-nodejs/*.go "$YAMLDIR/go.mod" "$YAMLDIR/go.sum"
		sed -n '/^build_all()/,/^}/p' "$SELF"
	} | sha256sum | cut -d' ' -f1
}

# The shims: resolve @pulumi/pulumi from the directory the CLI starts them in
# (the Pulumi program for the dynamic provider, the policy pack for the
# analyzer), as Pulumi's own sdk/nodejs/dist scripts do; if that fails, from
# $STACKWARDEN_PROJECT_DIR or the project this script ran in.
write_shim() { # <file> <module>
	local tmp="$1.tmp.$$"
	cat >"$tmp" <<EOF
#!/bin/sh
# Written by stackwarden scripts/pulumi-install.sh (Pulumi v$VERSION).
resolve() { node -e "try { console.log(require.resolve('$2')) } catch (e) {}" 2>/dev/null; }
script=\$(resolve)
if [ -z "\$script" ]; then
    script=\$(cd "\${STACKWARDEN_PROJECT_DIR:-$ROOT}" 2>/dev/null && resolve)
fi
if [ -z "\$script" ]; then
    echo "\$(basename "\$0"): cannot resolve $2 from \$(pwd) or \${STACKWARDEN_PROJECT_DIR:-$ROOT}; run npm install" >&2
    exit 1
fi
exec node "\$script" "\$@"
EOF
	chmod 755 "$tmp"
	mv -f "$tmp" "$1"
}

write_shims() { # <bin dir>
	write_shim "$1/pulumi-resource-pulumi-nodejs" "@pulumi/pulumi/cmd/dynamic-provider"
	write_shim "$1/pulumi-analyzer-policy" "@pulumi/pulumi/cmd/run-policy-pack"
}

is_current() {
	[ -z "${STACKWARDEN_PULUMI_REBUILD:-}" ] &&
		[ -x "$BIN/pulumi" ] && [ -x "$BIN/pulumi-language-nodejs" ] && [ -x "$BIN/pulumi-language-yaml" ] &&
		[ "$(cat "$DEST/.stamp" 2>/dev/null)" = "$(stamp)" ] &&
		[ "$(PULUMI_SKIP_UPDATE_CHECK=true "$BIN/pulumi" version 2>/dev/null)" = "v$VERSION" ]
}

# The pulumi-yaml release its module pins (go.mod's require line).
yaml_version() {
	sed -n 's#^[[:space:]]*github.com/pulumi/pulumi-yaml \(v[^[:space:]]*\).*#\1#p' "$YAMLDIR/go.mod"
}

build_all() { # <out bin dir>
	go build -trimpath -buildvcs=false -mod=readonly \
		-ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$VERSION" \
		-o "$1/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
	go build -trimpath -buildvcs=false -mod=readonly \
		-ldflags "-s -w -X main.version=$VERSION" \
		-o "$1/pulumi-language-nodejs" ./pulumi-language-nodejs
	go build -C "$YAMLDIR" -trimpath -buildvcs=false -mod=readonly \
		-ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$(yaml_version | sed 's/^v//')" \
		-o "$1/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
}

if is_current; then
	write_shims "$BIN" # cheap; keeps the fallback project dir current
	log "reusing $BIN"
	echo "$BIN"
	exit 0
fi

# ---- build -----------------------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
	[ -x /usr/local/go/bin/go ] || die "Go is not installed (need go >= 1.25 on PATH or in /usr/local/go)"
	export PATH="/usr/local/go/bin:$PATH"
fi
PINNED=$(sed -n 's#^[[:space:]]*github.com/pulumi/pulumi/pkg/v3 => github.com/pulumi/pulumi/pkg/v3 \(v[^[:space:]]*\).*#\1#p' "$MODDIR/go.mod")
[ "$PINNED" = "v$VERSION" ] ||
	die "node_modules has @pulumi/pulumi $VERSION but scripts/pulumi-cli/go.mod pins pkg/v3 ${PINNED:-?}; update go.mod (see scripts/pulumi-cli/README.md)"

# One build at a time per version; a second caller waits, then reuses it.
if ! slot_lock "$SLOT"; then
	write_shims "$BIN"
	log "reusing $BIN (built by another run)"
	echo "$BIN"
	exit 0
fi
slot_tmp "$SLOT"
TMP="$SLOT_TMP"
mkdir -p "$TMP/bin"
cd "$MODDIR"

t0=$SECONDS
log "$(go version)"
MODCACHE=$(go env GOMODCACHE)
log "downloading Go modules for Pulumi v$VERSION (first run: ~1.4 GB into $MODCACHE)..."
download_modules() { go mod download && go -C "$YAMLDIR" mod download; }
with_progress "downloading Go modules" "du -sh '$MODCACHE' | cut -f1; " -- download_modules
log "modules ready ($((SECONDS - t0))s); building pulumi, pulumi-language-nodejs and pulumi-language-yaml $(yaml_version) (first build: several minutes on 2 cores)..."
t1=$SECONDS
# GOFLAGS=-v names each package as it is compiled (into build.log): the progress lines count them.
# (Set here, not in build_all, whose text is part of the cache stamp: the binaries are the same.)
build_logged() { GOFLAGS="${GOFLAGS:+$GOFLAGS }-v" build_all "$1" 2>>"$2"; }
with_progress "building" "printf '%s packages compiled so far (cached ones not counted)' \$(wc -l < '$TMP/build.log')" -- build_logged "$TMP/bin" "$TMP/build.log" ||
	die "go build failed: $(tail -n 5 "$TMP/build.log")"
rm -f "$TMP/build.log"
log "built in $((SECONDS - t1))s"

got=$(PULUMI_SKIP_UPDATE_CHECK=true "$TMP/bin/pulumi" version)
[ "$got" = "v$VERSION" ] || die "built pulumi reports '$got', expected v$VERSION"
write_shims "$TMP/bin"
stamp >"$TMP/.stamp"

slot_commit "$SLOT"
log "installed pulumi v$VERSION and pulumi-language-yaml $(yaml_version) in $BIN ($(du -sh "$DEST" | cut -f1)); total $((SECONDS - t0))s"
echo "$BIN"
