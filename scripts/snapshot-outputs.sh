#!/usr/bin/env bash
# scripts/snapshot-outputs.sh OUTDIR
#
# Runs every command of the CLI on the dev stack, in every output format, against a fresh default
# emulator, and writes each command's stdout, stderr and exit code to OUTDIR (one file per run,
# timestamps, durations, ports and the tool version normalised). Two trees compared this way show
# whether a refactor changed what users see:
#   git worktree add /tmp/before REV && (cd /tmp/before && npm ci && bash scripts/snapshot-outputs.sh /tmp/out-before)
#   bash scripts/snapshot-outputs.sh /tmp/out-after && diff -r /tmp/out-before /tmp/out-after
# The runs go in a fixed order (apply after the read-only commands, probe before the check that
# judges its results), each against the same emulator, with state kept in a scratch directory.
set -euo pipefail
OUT="${1:?usage: snapshot-outputs.sh OUTDIR}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d)"
trap 'kill "$EMU_PID" 2>/dev/null || true; wait "$EMU_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

cd "$ROOT"
node bin/stackwarden.js emulator --port 0 >"$WORK/emu.out" 2>"$WORK/emu.err" &
EMU_PID=$!
for _ in $(seq 1 100); do
	URL="$(head -n1 "$WORK/emu.out" 2>/dev/null || true)"
	[[ "$URL" == http* ]] && break
	sleep 0.1
done
[[ "$URL" == http* ]] || { echo "snapshot-outputs: the emulator did not start" >&2; cat "$WORK/emu.err" >&2; exit 1; }

export NO_COLOR=1
export STACKWARDEN_ARM_ENDPOINT="$URL"
export STACKWARDEN_IMDS_ENDPOINT="$URL/metadata"
export STACKWARDEN_GEOCODING_ENDPOINT="$URL/geocoding"
export STACKWARDEN_GEOCODING_API_KEY="snapshot-key"
export STACKWARDEN_BINARY_ANALYSIS_ENDPOINT="$URL/binary-analysis/v1"
export STACKWARDEN_APISETU_ENDPOINT="$URL/apisetu"
export STACKWARDEN_APISETU_API_KEY="snapshot-key"
export STACKWARDEN_APISETU_CLIENT_ID="snapshot-client"
export STACKWARDEN_LOCK_DIR="$WORK/state/locks"
export STACKWARDEN_AUDIT_DIR="$WORK/state/audit"
export STACKWARDEN_PROBE_DIR="$WORK/state/probes"
unset AZURE_ACCESS_TOKEN

normalise() {
	sed -E \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)?/<TS>/g' \
		-e "s#$URL#<URL>#g" \
		-e "s#$WORK#<WORK>#g" \
		-e 's/"version": "[0-9.]+"/"version": "<V>"/g' \
		-e 's/stackwarden [0-9]+\.[0-9]+\.[0-9]+/stackwarden <V>/g' \
		-e 's/[0-9]+(\.[0-9]+)? ?(ms|s)\b/<DUR>/g' \
		-e 's/ +<DUR> */ <DUR> /g' \
		-e 's/"latencyMs": [0-9]+/"latencyMs": <N>/g' \
		-e 's/time="[0-9.]+"/time="<N>"/g' \
		-e 's/"signature": "[^"]+"/"signature": "<SIG>"/g' \
		-e 's/"(expires_on|not_before|expires_in)": "[0-9]+"/"\1": "<N>"/g' \
		-e 's/sha256 [0-9a-f]{64}/sha256 <HASH>/g' |
		# progress lines depend on timing: percentages of scans, counts of reads
		{ grep -Ev ' \[[#.]*\] [0-9]+%$|^inventory: [0-9]+/[0-9]+ reads' || true; } |
		# what runs concurrently ends in any order
		if [ "$SORT" = 1 ]; then sort; else cat; fi
}

run() {
	local name="$1"
	shift
	SORT=0
	[ "$name" = apply ] && SORT=1
	set +e
	node bin/stackwarden.js "$@" >"$WORK/o" 2>"$WORK/e"
	local code=$?
	set -e
	{
		echo "\$ stackwarden $*"
		echo "exit $code"
		echo "--- stdout"
		normalise <"$WORK/o"
		echo "--- stderr"
		normalise <"$WORK/e"
	} >"$OUT/$name.out"
	echo "snapshot-outputs: $name exit $code" >&2
}

run help --help
run stacks-table stacks
run stacks-json stacks --output json
run whoami-table whoami
run whoami-json whoami --output json
for f in table json markdown; do run "plan-$f" plan --stack dev --output "$f"; done
for f in table json markdown; do run "drift-$f" drift --stack dev --output "$f"; done
for f in json yaml table; do run "inventory-$f" inventory --stack dev --output "$f"; done
for f in table json; do run "where-$f" where --stack dev --output "$f"; done
for f in table json; do run "scan-$f" scan --stack dev --output "$f"; done
for f in table json; do run "geocode-$f" geocode "Dam 1, 1012 JS Amsterdam" --output "$f"; done
for f in table json sarif junit markdown; do run "check-$f" check --stack dev --output "$f"; done
for f in table json sarif junit markdown; do run "check-planned-$f" check --stack dev --planned --output "$f"; done
run probe-table probe --stack dev
run probe-json probe --stack dev --output json
for f in table json sarif junit markdown; do run "check-after-probe-$f" check --stack dev --output "$f"; done
run apply apply --stack dev --yes
run plan-after-apply plan --stack dev
run drift-after-apply drift --stack dev --output json
run audit-verify audit verify --stack dev
for c in plan apply drift check inventory probe whoami emulator start scan rules watch audit geocode where stacks pko; do
	run "help-$c" "$c" --help
done
