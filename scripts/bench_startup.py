#!/usr/bin/env python3
"""What a run costs before and around the counting (figures, not a test).

  bench_startup.py BENCH_RUSAGE PMUSTAT RUN_UNDER_EMU PMU_EMU EMU_WORKLOAD CPUID_DIR EVENTS_DIR

Prints medians over interleaved runs, CPU as the kernel accounts the finished
child (user + system), peak memory as its largest resident set (both read by
bench-rusage, scripts/bench_rusage.c, whose own ~1 MiB is the floor):

  - a one-shot perf-backend run (pmustat --backend perf -e task-clock -- true)
    against `perf stat -e task-clock true`, CPU and peak memory;
  - --dry-run --cpu-dump <Skylake dump> with 4 events;
  - -M TopdownL1's metric table: the same dry run with -M TopdownL1, less the
    one with a single event;
  - list PATTERN on the largest event table;
  - MSR accesses (rdmsr, wrmsr, rdpmc, from the emulated PMU's access
    statistics of the counting core) for 1, 4 and 8 events on Skylake and
    Ice Lake, with and without the NMI watchdog, GLOBAL_CTRL set (as Linux
    leaves it) and clear.

perf is Debian's linux-perf package; where it is missing or cannot count
here, the line says so and pmustat's figures stand alone.
"""
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

PAIRS = 21
BENCH_RUSAGE = None
EVENTS = ["BR_INST_RETIRED.ALL_BRANCHES", "LONGEST_LAT_CACHE.MISS", "MEM_INST_RETIRED.ALL_LOADS",
          "UOPS_ISSUED.ANY", "BR_MISP_RETIRED.ALL_BRANCHES", "MEM_LOAD_RETIRED.L1_HIT",
          "MEM_INST_RETIRED.ALL_STORES", "ICACHE_64B.IFTAG_MISS"]


def run_once(argv):
    """(cpu seconds, peak KiB, exit status) of one run, output discarded."""
    out = subprocess.run([BENCH_RUSAGE] + argv, capture_output=True, text=True, check=True).stdout
    us, kib, rc = (int(x) for x in out.split())
    return us / 1e6, kib, rc


def medians(commands):
    """Each command's median CPU (ms) and peak (KiB), run in turn PAIRS times."""
    cpu = [[] for _ in commands]
    peak = [[] for _ in commands]
    for c in commands:
        run_once(c)  # warm-up: page cache, dynamic linker
    for _ in range(PAIRS):
        for i, c in enumerate(commands):
            secs, kib, rc = run_once(c)
            if rc != 0:
                sys.exit(f"bench-startup: {' '.join(c)}: exit {rc}")
            cpu[i].append(secs * 1000)
            peak[i].append(kib)
    return [(statistics.median(cpu[i]), statistics.median(peak[i])) for i in range(len(commands))]


def perf_usable():
    perf = shutil.which("perf")
    if not perf:
        return None, "perf not installed (Debian: apt-get install linux-perf)"
    r = subprocess.run([perf, "stat", "-e", "task-clock", "true"], capture_output=True, text=True)
    if r.returncode != 0 or "task-clock" not in r.stderr:
        return None, "perf cannot count here: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return perf, None


def msr_accesses(pmustat, run_under_emu, pmu_emu, workload, model, events, watchdog, ctrl_clear):
    with tempfile.TemporaryDirectory(prefix="bench-startup.") as d:
        state = os.path.join(d, "state")
        init = [pmu_emu, "init", "--model", model, "--cpus", "2"]
        if watchdog:
            init.append("--watchdog")
        if ctrl_clear:
            init += ["--set", "0x38f=0"]
        subprocess.run(init + [state], check=True)
        r = subprocess.run([run_under_emu, "--state", state, "--", pmustat, "-C", "0", "-e",
                            ",".join(events), "--", workload, "--retire", "0xc0:0:1000"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"bench-startup: {model} {len(events)} events: exit {r.returncode}: {r.stderr}")
        dump = subprocess.run([pmu_emu, "dump", state, "--cpu", "0"], capture_output=True,
                              text=True, check=True).stdout
        m = re.search(r"accesses: (\d+) rdmsr, (\d+) wrmsr, \d+ #GP, (\d+) rdpmc", dump)
        return tuple(int(x) for x in m.groups())


def main():
    global BENCH_RUSAGE
    BENCH_RUSAGE, pmustat, run_under_emu, pmu_emu, workload, cpuid_dir, events_dir = sys.argv[1:8]
    skylake = os.path.join(cpuid_dir, "intel-skylake-client-i7-6700k.txt")
    perf, why_not = perf_usable()
    print(f"bench-startup: medians of {PAIRS} interleaved runs; CPU = user + system")

    one_shot = [pmustat, "--backend", "perf", "-e", "task-clock", "--", "true"]
    if perf:
        (p_cpu, p_peak), (f_cpu, f_peak) = medians([one_shot, [perf, "stat", "-e", "task-clock", "true"]])
        print(f"one-shot perf-backend run: pmustat {p_cpu:.2f} ms CPU, perf stat {f_cpu:.2f} ms: "
              f"{p_cpu / f_cpu:.2f}x (goal <= 0.25x)")
        print(f"peak memory: pmustat {p_peak} KiB, perf stat {f_peak} KiB: {p_peak / f_peak:.2f}x "
              f"(goal <= 0.25x)")
    else:
        (p_cpu, p_peak), = medians([one_shot])
        print(f"one-shot perf-backend run: pmustat {p_cpu:.2f} ms CPU; {why_not}")
        print(f"peak memory: pmustat {p_peak} KiB; {why_not}")

    dry = [pmustat, "--dry-run", "--cpu-dump", skylake]
    (d4, _), (d1, _), (dm, _) = medians([dry + ["-e", ",".join(EVENTS[:4]), "--", "true"],
                                         dry + ["-e", EVENTS[0], "--", "true"],
                                         dry + ["-M", "TopdownL1", "--", "true"]])
    print(f"--dry-run --cpu-dump <skylake> -e 4 events: {d4:.2f} ms CPU (goal <= 1.2 ms)")
    print(f"-M TopdownL1 metric table: {dm - d1:.2f} ms CPU ({dm:.2f} ms the dry run with it, "
          f"{d1:.2f} ms with one event instead; goal <= 0.5 ms)")

    largest = max((p for p in pathlib.Path(events_dir).glob("*.json") if p.stem != "netburst"),
                  key=lambda p: p.stat().st_size).stem
    (lst, _), = medians([[pmustat, "list", "--table", largest, "CACHE"]])
    print(f"list --table {largest} CACHE (the largest table): {lst:.2f} ms CPU")

    print("MSR accesses of the counting core (rdmsr + wrmsr, rdpmc apart), one run of emu-workload:")
    for model in ("skylake", "icelake"):
        for n in (1, 4, 8):
            cells = []
            for watchdog in (False, True):
                for ctrl_clear in (False, True):
                    rd, wr, rdpmc = msr_accesses(pmustat, run_under_emu, pmu_emu, workload, model,
                                                 EVENTS[:n], watchdog, ctrl_clear)
                    cells.append(f"{'watchdog' if watchdog else 'no watchdog'}, GLOBAL_CTRL "
                                 f"{'clear' if ctrl_clear else 'set'}: {rd + wr} ({rd} rd, {wr} wr, "
                                 f"{rdpmc} rdpmc)")
            print(f"  {model}, {n} event{'s' if n > 1 else ''}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
