#!/bin/sh
# A program built against the build tree's pmustat-region.pc (meson's
# meson-uninstalled/ directory, as a user would point PKG_CONFIG_PATH at it)
# finds libpmustat-region.so.1 when it runs: no LD_LIBRARY_PATH needed.
#
# test_uninstalled_pc.sh BUILD_DIR SOURCE_DIR CC
set -eu
build=$1
src=$2
cc=$3

if ! command -v pkg-config >/dev/null 2>&1; then
	echo "pkg-config is not installed (apt-get install pkg-config)" >&2
	exit 77
fi
tmp=$(mktemp -d /tmp/pmustat-pc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

flags=$(PKG_CONFIG_PATH="$build/meson-uninstalled" pkg-config --cflags --libs pmustat-region-uninstalled) || {
	echo "FAIL: pkg-config pmustat-region-uninstalled" >&2
	exit 1
}
# shellcheck disable=SC2086
"$cc" -O2 -DPMUSTAT_REGIONS "$src/examples/region.c" $flags -o "$tmp/prog" 2>"$tmp/cc.log" || {
	echo "FAIL: cc: $(cat "$tmp/cc.log")" >&2
	exit 1
}
env -u LD_LIBRARY_PATH "$tmp/prog" >"$tmp/out" 2>&1 || {
	echo "FAIL: the program did not run: $(cat "$tmp/out")" >&2
	exit 1
}
echo "ok: $(head -c 200 "$tmp/out")"
