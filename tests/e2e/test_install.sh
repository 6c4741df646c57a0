#!/bin/sh
# An installed pmustat is relocatable: `meson install` into a temporary
# root, then the installed prefix moved elsewhere as a whole; the moved
# binary finds its event tables beside itself (bin/../share/pmustat/events),
# not in the prefix it was configured for. A binary copied alone says where
# it looked and what to do.
#
# test_install.sh MESON BUILD_DIR CPUID_DUMP
set -eu
meson=$1
build=$2
dump=$3

tmp=$(mktemp -d /tmp/pmustat-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$meson" install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	fail "meson install: $(cat "$tmp/install.log")"
bin=$(find "$tmp/root" -type f -name pmustat -path '*/bin/*')
[ -n "$bin" ] || fail "no bin/pmustat installed under $tmp/root"
prefix=$(dirname "$(dirname "$bin")")

# Moved: neither the configured prefix nor the DESTDIR path holds it now.
mv "$prefix" "$tmp/moved"
pmustat="$tmp/moved/bin/pmustat"
[ -f "$tmp/moved/share/pmustat/events/mapfile.csv" ] || fail "no share/pmustat/events/mapfile.csv installed"
[ -f "$tmp/moved/share/bash-completion/completions/pmustat" ] || fail "no bash completion installed"
# The --json records' contract, for scripts that validate them.
[ -f "$tmp/moved/share/pmustat/pmustat-output.schema.json" ] || fail "no share/pmustat/pmustat-output.schema.json installed"

out=$("$pmustat" list --table skylake LONGEST_LAT_CACHE.MISS 2>&1) || fail "moved pmustat list: $out"
case $out in
*LONGEST_LAT_CACHE.MISS*) ;;
*) fail "moved pmustat list: no LONGEST_LAT_CACHE.MISS in: $out" ;;
esac
out=$("$pmustat" info --json --cpu-dump "$dump" 2>&1) || fail "moved pmustat info: $out"
case $out in
*'"event_table": "skylake"'*) ;;
*) fail "moved pmustat info --cpu-dump: not the skylake table: $out" ;;
esac

# A binary copied out alone: pmustat says where it looked and what to do
# (unless this machine has pmustat installed in the configured prefix).
mkdir "$tmp/alone"
cp "$pmustat" "$tmp/alone/pmustat"
if out=$("$tmp/alone/pmustat" --cpu-dump "$dump" --dry-run -e LONGEST_LAT_CACHE.MISS -- true 2>&1); then
	echo "note: the lone copy found the configured prefix's tables (pmustat is installed on this machine)"
else
	case $out in
	*"beside its binary"*"meson install"*) ;;
	*) fail "lone pmustat: no hint in: $out" ;;
	esac
fi
echo "ok: installed, moved, found its tables"
