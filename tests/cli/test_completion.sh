#!/usr/bin/env bash
# The bash completion (completions/pmustat) against the real binary:
# subcommands, options (every option `pmustat --help` and each
# subcommand's --help lists), event names after -e, each term of a list.
#
# test_completion.sh COMPLETION_FILE PMUSTAT
set -u
completion=$1
pmustat=$2
failures=0

# shellcheck source=/dev/null
source "$completion"

# complete LINE: COMPREPLY for the words of LINE, the last being completed.
complete_line() {
	read -r -a COMP_WORDS <<<"$1"
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_WORDS[0]=$pmustat
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_pmustat
}

expect() {
	local line=$1 want=$2
	complete_line "$line"
	local w
	for w in "${COMPREPLY[@]}"; do
		[[ $w == "$want" ]] && return 0
	done
	echo "FAIL: '$line' offers no '$want' (got: ${COMPREPLY[*]:0:10})"
	failures=$((failures + 1))
}

expect "pmustat in" info
expect "pmustat he" help
expect "pmustat help li" list
expect "pmustat list --ta" --tables
expect "pmustat list --table sky" skylake
expect "pmustat -e cache-mi" cache-misses
expect "pmustat -e instructions,branch-m" instructions,branch-misses
expect "pmustat -e {branches,branch-m" "{branches,branch-misses"
expect "pmustat -e task-c" task-clock
expect "pmustat --backend p" perf

# expect_none LINE WORD: WORD is not among the offers.
expect_none() {
	local line=$1 bad=$2 w
	complete_line "$line"
	for w in "${COMPREPLY[@]}"; do
		if [[ $w == "$bad" ]]; then
			echo "FAIL: '$line' offers '$bad'"
			failures=$((failures + 1))
			return
		fi
	done
}

# -M: perf's groups, and a list's next term; metric names and groups from
# `pmustat list --metrics` (of an Intel table, whatever CPU runs the test).
expect "pmustat -M Topdown" TopdownL1
expect "pmustat -M TopdownL1,Topdown" TopdownL1,TopdownL2
expect_none "pmustat -M " bash
intel=$(mktemp -d)
trap 'rm -rf "$intel"' EXIT
printf '#!/bin/sh\nexec "%s" "$@" --table skylake\n' "$pmustat" >"$intel/pmustat"
chmod +x "$intel/pmustat"
real=$pmustat
pmustat=$intel/pmustat
expect "pmustat -M Frontend_B" Frontend_Bound
expect "pmustat -M Info_Thread_I" Info_Thread_IPC
expect "pmustat -M TmaL" TmaL1
pmustat=$real

# -C: the CPUs this shell may run on, and all of them as a range; no commands.
cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
first=${cpus%%[-,]*}
expect "pmustat -C " "$first"
expect "pmustat -C " "$cpus"
expect "pmustat -C $first," "$first,$first"
expect_none "pmustat -C " bash
expect_none "pmustat -C " ls

# The command after --, or after the options; then its files, not pmustat's options.
expect "pmustat -- bas" bash
expect "pmustat -e cycles -- bas" bash
expect "pmustat -r 3 bas" bash
expect_none "pmustat -- bash --" --event

# Every option the help texts list is offered.
for sub in "" info list state reset; do
	# shellcheck disable=SC2086
	for opt in $("$pmustat" $sub --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
		expect "pmustat${sub:+ $sub} ${opt:0:4}" "$opt"
	done
done

echo "completion: $failures failures"
((failures == 0))
