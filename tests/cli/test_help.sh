#!/usr/bin/env bash
# pmustat help [COMMAND], every subcommand's --help describing its options,
# and errors that name the subcommand.
#
# test_help.sh PMUSTAT
set -u
pmustat=$1
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

out=$("$pmustat" help 2>&1) && [[ $out == *"usage: pmustat [stat] [-e EVENTS]"* && $out == *"Counting options:"* ]] ||
	fail "pmustat help: $out"
for sub in stat info list state reset; do
	out=$("$pmustat" help "$sub" 2>&1) || fail "pmustat help $sub: exit $?"
	# counting is also the default: its usage shows the word as optional
	[[ $out == *"usage: pmustat $sub"* || ($sub == stat && $out == *"usage: pmustat [stat]"*) ]] || fail "pmustat help $sub: $out"
	# The options are described, not only named: lines "  -x, --opt   what".
	n=$(grep -cE '^ +(-[a-zA-Z], )?--[a-z-]+.* {2,}[a-z(]' <<<"$out")
	((n >= 2)) || fail "pmustat $sub --help describes $n options: $out"
	[[ $("$pmustat" "$sub" --help 2>&1) == "$out" ]] || fail "pmustat $sub --help differs from pmustat help $sub"
	out=$("$pmustat" "$sub" --bogus 2>&1)
	status=$?
	((status == 125)) && [[ $out == "pmustat $sub: "* ]] || fail "pmustat $sub --bogus: $status $out"
done
out=$("$pmustat" help nope 2>&1)
status=$?
((status == 125)) && [[ $out == *"pmustat help: no command 'nope'"* ]] || fail "pmustat help nope: $status $out"

echo "help: $failures failures"
((failures == 0))
