#!/usr/bin/env bash
# Lints every GitHub Actions workflow of this project (or the workflow files given as arguments, e.g.
# those `stackwarden init` writes) with actionlint, pinned to one version and built from the Go
# module proxy into the cache the first time (about 40 s cold, reused afterwards):
#   ${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}/actionlint-<version>/bin
# Where there is no Go toolchain it prints one loud SKIPPED line and exits 0; a failed build or a
# lint finding exits non-zero.
set -euo pipefail
args=()
for f in "$@"; do args+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done
set -- "${args[@]}"
cd "$(dirname "$0")/.."

VERSION=v1.7.12
CACHE_ROOT="${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}"
BIN="$CACHE_ROOT/actionlint-$VERSION/bin"
ACTIONLINT="$BIN/actionlint"

if [ ! -x "$ACTIONLINT" ]; then
	GO="$(command -v go || true)"
	[ -n "$GO" ] || [ ! -x /usr/local/go/bin/go ] || GO=/usr/local/go/bin/go
	if [ -z "$GO" ]; then
		echo "==== SKIPPED actionlint: no Go toolchain to build github.com/rhysd/actionlint/cmd/actionlint@$VERSION; the workflows were NOT linted ====" >&2
		exit 0
	fi
	echo "actionlint: building $VERSION from the Go module proxy into $BIN" >&2
	mkdir -p "$BIN"
	GOBIN="$BIN" "$GO" install "github.com/rhysd/actionlint/cmd/actionlint@$VERSION" ||
		{ echo "actionlint: go install github.com/rhysd/actionlint/cmd/actionlint@$VERSION failed" >&2; exit 1; }
fi

shopt -s nullglob
if [ $# -gt 0 ]; then
	workflows=("$@")
else
	workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
fi
[ ${#workflows[@]} -gt 0 ] || { echo "actionlint: no workflows in .github/workflows" >&2; exit 1; }
"$ACTIONLINT" -no-color "${workflows[@]}"
echo "actionlint $VERSION: ${#workflows[@]} workflow(s) clean" >&2
