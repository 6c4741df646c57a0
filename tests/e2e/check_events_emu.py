#!/usr/bin/env python3
"""check_emu.py PMUSTAT LIBPMUEMU PMU_EMU: the real binary on an emulated
Intel PMU (tests/emu): `list` picks the table from the emulated CPUID (per
core type on a hybrid part), and `-e` errors exit 125 with their reason
before pmustat touches a single MSR (the state file stays identical)."""

import json
import os
import subprocess
import sys
import tempfile

pmustat, lib, pmu_emu = (os.path.abspath(p) for p in sys.argv[1:4])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(state, *args):
    # A sanitized pmustat must accept a preload ahead of its ASan runtime
    # (libpmuemu itself is never instrumented; see tests/emu/meson.build).
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = dict(os.environ, LD_PRELOAD=lib, PMUSTAT_EMU_STATE=state,
               ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")
    return subprocess.run([pmustat, *args], capture_output=True, text=True, env=env)


with tempfile.TemporaryDirectory(prefix="pmustat-events-emu-") as tmp:
    skl = os.path.join(tmp, "skl")
    subprocess.run([pmu_emu, "init", "--model", "skylake", "--cpus", "1", skl], check=True)
    p = run(skl, "list", "--json", "-C", "0")
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    check(doc.get("table") == "skylake", "skylake list: %d %r %s" % (p.returncode, doc.get("table"), p.stderr))
    check([a["name"] for a in doc.get("architectural_events", []) if a["available"]] ==
          ["CORE_CYCLES", "INSTRUCTIONS_RETIRED", "REF_CYCLES", "LLC_REFERENCES", "LLC_MISSES",
           "BRANCH_INSTRUCTIONS", "BRANCH_MISSES"], "skylake arch events from CPUID")

    before = os.path.join(tmp, "before")
    after = os.path.join(tmp, "after")
    subprocess.run([pmu_emu, "save", skl, before], check=True)
    for spec, text in (("cycles,LLC_MISES", "unknown event 'LLC_MISES' for skylake; did you mean LLC_MISSES"),
                       ("LLC_MISSES,FRONTEND_RETIRED.DSB_MISS", "needs MSR 0x3f7"),
                       ("BR_INST_RETIRED.ALL_BRANCHES_PEBS", "PEBS-only"),
                       ("UNC_CHA_CLOCKTICKS", "uncore event"),
                       ("slots", "not available on this CPU"),
                       ("r1FFFFFFFFF", "above bit 31"),
                       ("cycles,,instructions", "empty event name")):
        p = run(skl, "-C", "0", "-e", spec, "true")
        check(p.returncode == 125 and text in p.stderr,
              "-e %s: exit %d, %r" % (spec, p.returncode, p.stderr))
    # An event asked for twice is counted once: one row (perf accepts it too).
    p = run(skl, "-C", "0", "-x", ",", "-e", "cycles,cycles", "true")
    check(p.returncode == 0 and p.stderr.count(",cycles:u,") == 1,
          "-e cycles,cycles: exit %d, %r" % (p.returncode, p.stderr))
    subprocess.run([pmu_emu, "save", skl, after], check=True)
    d = subprocess.run([pmu_emu, "diff", before, after], capture_output=True, text=True)
    check(d.returncode == 0, "MSRs changed by refused -e specs: %s" % d.stdout)

    # Hybrid: CPU 0 is a P-core, CPU 1 an E-core.
    adl = os.path.join(tmp, "adl")
    subprocess.run([pmu_emu, "init", "--model", "alderlake", "--cpus", "2", "--pcores", "1", adl],
                   check=True)
    for cpu, table in (("0", "alderlake_goldencove"), ("1", "alderlake_gracemont")):
        p = run(adl, "list", "--json", "-C", cpu)
        doc = json.loads(p.stdout) if p.returncode == 0 else {}
        check(doc.get("table") == table, "alderlake CPU %s: %r %s" % (cpu, doc.get("table"), p.stderr))

for f in failures:
    print("FAIL:", f)
print("check_emu: %d failures" % len(failures))
sys.exit(1 if failures else 0)
