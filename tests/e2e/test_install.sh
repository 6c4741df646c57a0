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

# The compiled tables are installed beside the JSON and used: `list --json`
# prints the same for every table as the JSON read at run time (the
# compiled tables moved aside), and so does list --metrics for every metric
# table; a corrupt or truncated one is refused,
# naming the file, never trusted.
tables="$tmp/moved/share/pmustat/tables"
[ -f "$tables/skylake.pmt" ] || fail "no share/pmustat/tables/skylake.pmt installed"
mkdir "$tmp/from-json"
for compiled in "$tables"/*.pmt; do
	case $compiled in *.metrics.pmt) continue ;; esac
	name=$(basename "$compiled" .pmt)
	"$pmustat" list --table "$name" --json --long >"$tmp/from-json/$name.compiled" 2>&1 ||
		fail "list --table $name from the compiled table: $(cat "$tmp/from-json/$name.compiled")"
done
[ -f "$tables/skylake.metrics.pmt" ] || fail "no share/pmustat/tables/skylake.metrics.pmt installed"
for compiled in "$tables"/*.metrics.pmt; do
	name=$(basename "$compiled" .metrics.pmt)
	"$pmustat" list --metrics --table "$name" --json --long >"$tmp/from-json/$name.metrics.compiled" 2>&1 ||
		fail "list --metrics --table $name from the compiled table: $(cat "$tmp/from-json/$name.metrics.compiled")"
done
mv "$tables" "$tmp/tables.aside"
for listed in "$tmp/from-json"/*.compiled; do
	name=$(basename "$listed" .compiled)
	case $name in
	*.metrics) args="--metrics --table ${name%.metrics}" ;;
	*) args="--table $name" ;;
	esac
	# shellcheck disable=SC2086 # the words of $args
	"$pmustat" list $args --json --long >"$tmp/from-json/$name.json" 2>&1 ||
		fail "list $args from the JSON: $(cat "$tmp/from-json/$name.json")"
	cmp -s "$listed" "$tmp/from-json/$name.json" ||
		fail "list $args --json differs between the compiled table and the JSON: $(diff "$listed" "$tmp/from-json/$name.json" | head -5)"
done
[ "$(ls "$tmp/from-json" | wc -l)" -ge 120 ] || fail "fewer than 60 tables compared: $(ls "$tmp/from-json")"
mv "$tmp/tables.aside" "$tables"
cp "$tables/skylake.pmt" "$tmp/skylake.pmt.good"
# One flipped byte in a description, then the file cut short.
printf 'X' | dd of="$tables/skylake.pmt" bs=1 seek=40000 conv=notrunc status=none
for damaged in flipped truncated; do
	if out=$("$pmustat" list --table skylake LONGEST_LAT_CACHE.MISS 2>&1); then
		fail "a $damaged compiled table was used: $out"
	fi
	case $out in
	*"tables/skylake.pmt: "*"rebuild or reinstall pmustat"*) ;;
	*) fail "a $damaged compiled table: no clear refusal in: $out" ;;
	esac
	head -c 5000 "$tmp/skylake.pmt.good" >"$tables/skylake.pmt"
done
cp "$tmp/skylake.pmt.good" "$tables/skylake.pmt"
cp "$tables/skylake.metrics.pmt" "$tmp/skylake.metrics.pmt.good"
printf 'X' | dd of="$tables/skylake.metrics.pmt" bs=1 seek=30000 conv=notrunc status=none
if out=$("$pmustat" list --metrics --table skylake 2>&1); then
	fail "a damaged compiled metric table was used: $out"
fi
case $out in
*"tables/skylake.metrics.pmt: "*"rebuild or reinstall pmustat"*) ;;
*) fail "a damaged compiled metric table: no clear refusal in: $out" ;;
esac
cp "$tmp/skylake.metrics.pmt.good" "$tables/skylake.metrics.pmt"

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
echo "ok: installed, moved, found its tables; compiled tables list as the JSON does, damaged ones refused"
