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
expect "pmustat se" serve
expect "pmustat --output-format op" openmetrics

# Every option the help texts list is offered.
for sub in "" info list state reset serve; do
	# shellcheck disable=SC2086
	for opt in $("$pmustat" $sub --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
		expect "pmustat${sub:+ $sub} ${opt:0:4}" "$opt"
	done
done

echo "completion: $failures failures"
((failures == 0))
