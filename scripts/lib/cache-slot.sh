# One directory of stackwarden's cache, filled once and reused (sourced by the install scripts):
#   ${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}/<slot>
# A slot is built in a temporary directory beside it and moved into place at the end, so a killed
# install leaves no half-made slot; a lock (flock, where there is one) lets one install at a time
# build a slot, and a second caller waits, then finds it current.
#
#   slot_lock pulumi-v3.248.0 || reuse ...   # returns 1 when the slot became current while waiting
#   slot_tmp pulumi-v3.248.0                 # sets SLOT_TMP, removed on exit unless committed
#   slot_commit pulumi-v3.248.0              # SLOT_TMP becomes the slot
#
# The caller defines die() and is_current() (is the slot in place and right?).

CACHE_ROOT="${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}"
SLOT_LOCKED=

slot_lock() { # <slot>; returns 1 if another install made the slot current while we waited
	mkdir -p "$CACHE_ROOT"
	exec 9>"$CACHE_ROOT/.$1.lock"
	command -v flock >/dev/null 2>&1 || return 0
	flock 9 || die "could not lock $CACHE_ROOT/.$1.lock"
	SLOT_LOCKED=1
	! is_current
}

slot_tmp() { # <slot>
	# Leftovers of killed installs of this slot (we hold its lock, or they are an hour old).
	local age=(-mmin +60)
	[ -n "$SLOT_LOCKED" ] && age=()
	find "$CACHE_ROOT" -maxdepth 1 -name ".$1.*.*" "${age[@]}" -exec rm -rf {} + 2>/dev/null || true
	SLOT_TMP=$(mktemp -d "$CACHE_ROOT/.$1.tmp.XXXXXX")
	trap 'rm -rf "$SLOT_TMP"' EXIT
	trap 'exit 130' INT TERM HUP
	chmod 755 "$SLOT_TMP"
}

slot_commit() { # <slot>
	local dest="$CACHE_ROOT/$1" old="$CACHE_ROOT/.$1.old.$$"
	[ -e "$dest" ] && mv "$dest" "$old"
	mv "$SLOT_TMP" "$dest"
	trap - EXIT
	rm -rf "$old"
}
