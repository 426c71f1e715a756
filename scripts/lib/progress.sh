# Progress for long steps of the install scripts (sourced). A step that takes minutes says every
# PROGRESS_EVERY seconds (default 15) that it is still going, how long it has run and, when given,
# a measure of how far it is (the size of the module cache, the packages compiled so far).
#
#   with_progress "downloading Go modules" "du -sh /path | cut -f1" -- go mod download
#
# The step's own output is left alone; progress lines go to stderr. The step's exit status is returned.

PROGRESS_EVERY="${PROGRESS_EVERY:-15}"

with_progress() { # <label> <measure command, or ""> -- <command...>
	local label="$1" measure="$2"
	shift 2
	[ "${1:-}" = "--" ] && shift
	local started=$SECONDS
	"$@" &
	local pid=$!
	(
		while sleep "$PROGRESS_EVERY"; do
			kill -0 "$pid" 2>/dev/null || exit 0
			local how=""
			[ -n "$measure" ] && how=$(bash -c "$measure" 2>/dev/null | tail -n1)
			printf '%s: %s: still going after %ss%s\n' "${PROGRESS_NAME:-progress}" "$label" "$((SECONDS - started))" "${how:+ ($how)}" >&2
		done
	) &
	local ticker=$!
	local status=0
	wait "$pid" || status=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	return "$status"
}
