#!/usr/bin/env bash
# The shell harness itself: run-under-emu RUN_UNDER_EMU PMU_EMU EMU_PROBE EMU_WORKLOAD
set -u
run=$1 pmu_emu=$2 probe=$3 workload=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-run-under-emu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

check() {	# check NAME WANT GOT
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1: want '$2', got '$3'"
		fails=$((fails + 1))
	fi
}

out=$("$run" --model haswell -- "$probe" libcpuid)
check "CPUID of the model through libcpuid" "libcpuid GenuineIntel family 6 model 3c" "${out%% leafA*}"

"$run" --state "$tmp/s" --model skylake --cpus 1 --save-before "$tmp/b" --save-after "$tmp/a" \
	-- "$probe" wrmsr 0 0x186 0x4100c0 >/dev/null
diff_out=$("$pmu_emu" diff "$tmp/b" "$tmp/a"); status=$?
check "diff exit status after a write" 1 "$status"
check "diff names the MSR" "cpu 0 IA32_PERFEVTSEL0 (0x186): 0x0 -> 0x4100c0" "$(echo "$diff_out" | head -1)"

# --state alone reuses the machine.
out=$("$run" --state "$tmp/s" -- "$probe" rdmsr 0 0x186)
check "state shared between runs" "rdmsr 0x4100c0" "$out"

"$run" --state "$tmp/s" -- "$workload" --exit 7 >/dev/null
check "exit status of the command" 7 $?
"$run" --state "$tmp/s" -- "$workload" --crash >/dev/null 2>&1
check "death by signal" 139 $?
"$run" --state "$tmp/nonexistent" -- true 2>/dev/null
check "missing state file" 2 $?

# Presets at init, and another party acting from outside.
"$pmu_emu" init --model skylake --cpus 1 --set 0x38d=0x2 "$tmp/p" || fails=$((fails + 1))
check "preset register" "0x2" "$("$pmu_emu" get "$tmp/p" 0 0x38d)"
"$pmu_emu" act "$tmp/p" 0 take-fixed:1 nmi:0x200000000
check "act: perf takes FC1, the NMI handler rewrites GLOBAL_CTRL" "0xb2 0x200000000" \
	"$("$pmu_emu" get "$tmp/p" 0 0x38d) $("$pmu_emu" get "$tmp/p" 0 0x38f)"
"$pmu_emu" act "$tmp/p" 0 take-fixed:1 2>/dev/null
check "act on a busy counter" 1 $?
# The machine's /run is its own directory, s.d; shared between runs on it, emptied by init.
"$run" --state "$tmp/s" -- "$probe" fs /run/pmustat >/dev/null
check "the machine keeps its /run in s.d" "kept" "$(cat "$tmp/s.d/run/pmustat/kept" 2>&1)"
out=$("$run" --state "$tmp/s" -- "$probe" file /run/pmustat/kept)
check "a later run on the machine sees it" "file kept" "$out"
"$pmu_emu" init --model skylake --cpus 1 "$tmp/s"
check "pmu-emu init boots the machine with an empty /run" "" "$(find "$tmp/s.d/run" -mindepth 1 -not -path "$tmp/s.d/run/lock")"
check "its /run/lock is sticky and open to all" "1777" "$(stat -c %a "$tmp/s.d/run/lock")"

[ $fails -eq 0 ]
