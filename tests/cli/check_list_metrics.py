#!/usr/bin/env python3
"""check_list_metrics.py PMUSTAT CPUID_DUMP_DIR: `pmustat list --metrics` end
to end: the metric table a CPU's mapfile row names, patterns and groups, the
--json shape, --long, and the statuses for CPUs without metrics and unknown
tables."""

import json
import os
import subprocess
import sys

pmustat, dumps = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([pmustat, "list", "--metrics", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


def jlist(*args):
    rc, out, err = run(*args, "--json")
    check(rc == 0, "%s: exit %d: %s" % (args, rc, err))
    return json.loads(out) if rc == 0 else {"metrics": [], "table": None}


doc = jlist("--table", "skylake")
check(doc["format_version"] == 1 and doc["table"] == "skylake", "header %r" % doc.get("table"))
check(doc["source"] == {"file": "SKL/metrics/skylake_metrics.json", "version": "1.0",
                        "tma_version": "5.01"}, "source %r" % doc.get("source"))
check(len(doc["metrics"]) == 207, "skylake has %d metrics" % len(doc["metrics"]))
fe = next((m for m in doc["metrics"] if m["name"] == "Frontend_Bound"), {})
check(fe.get("perf_name") == "tma_frontend_bound" and fe.get("level") == 1 and
      fe.get("unit") == "percent" and "TmaL1" in fe.get("groups", []) and fe.get("tree") is True
      and fe.get("parent") is None and fe.get("description", "").startswith("This category")
      and fe.get("events") == ["IDQ_UOPS_NOT_DELIVERED.CORE", "CPU_CLK_UNHALTED.THREAD_ANY",
                               "CPU_CLK_UNHALTED.THREAD"]
      and fe.get("threshold") == "a > 15", "Frontend_Bound: %r" % fe)
ipc = next((m for m in doc["metrics"] if m["name"] == "Info_Thread_IPC"), {})
check(ipc.get("unit") == "" and ipc.get("tree") is False and ipc.get("threshold") is None,
      "Info_Thread_IPC: %r" % ipc)

# Patterns: substring over names, perf names, groups, descriptions; groups as -M names them.
names = [m["name"] for m in jlist("--table", "skylake", "TopdownL1")["metrics"]]
check(names == ["Frontend_Bound", "Bad_Speculation", "Backend_Bound", "Retiring"],
      "TopdownL1: %r" % names)
names = [m["name"] for m in jlist("--table", "skylake", "tma_fetch_latency_group")["metrics"]]
check("ICache_Misses" in names and "Frontend_Bound" not in names, "children: %r" % names)
names = [m["name"] for m in jlist("--table", "skylake", "info_thread_*")["metrics"]]
check("Info_Thread_IPC" in names and all(n.startswith("Info_Thread_") for n in names),
      "glob: %r" % names)
check(jlist("--table", "skylake", "no-such-metric-anywhere")["metrics"] == [], "no match")

# Text, --long.
rc, out, err = run("--table", "skylake", "Info_Thread_IPC", "--long")
check(rc == 0 and "  Info_Thread_IPC\n" in out and "perf: tma_info_thread_ipc" in out and
      "formula: a/(b)" in out and "events INST_RETIRED.ANY" in out, "--long: %r" % out)
rc, out, err = run("--table", "skylake", "no-such-metric-anywhere")
check(rc == 0 and "no metric matches" in out, "text no match: %r" % out)

# By CPU: the table the mapfile row names; none for E-cores and old parts.
doc = jlist("--cpu-dump", os.path.join(dumps, "intel-skylake-client-i7-6700k.txt"))
check(doc["table"] == "skylake", "skylake dump: %r" % doc["table"])
doc = jlist("--cpu-dump", os.path.join(dumps, "intel-alderlake-hybrid-i9-12900k-pcore.txt"))
check(doc["table"] == "alderlake_goldencove", "ADL P-core: %r" % doc["table"])
rc, out, err = run("--json", "--cpu-dump",
                   os.path.join(dumps, "intel-alderlake-hybrid-i9-12900k-ecore.txt"))
check(rc == 0 and json.loads(out)["metrics"] == [] and json.loads(out)["table"] is None and
      "Intel publishes no metrics for table alderlake_gracemont" in err, "ADL E-core: %r" % err)
rc, out, err = run("--cpu-dump", os.path.join(dumps, "intel-sandybridge-client-i7-2600.txt"))
check(rc == 0 and out == "" and "no metrics for table sandybridge" in err, "SNB: %r" % err)

# A table with no metrics, a table that does not exist.
rc, out, err = run("--table", "sandybridge")
check(rc == 125 and "no metrics for 'sandybridge'" in err and "metrics" in err.splitlines()[-1],
      "--table sandybridge: %d %r" % (rc, err))
rc, out, err = run("--table", "nosuch")
check(rc == 125 and out == "", "--table nosuch: %d" % rc)

for f in failures:
    print(f)
print("check_list_metrics: %d problems" % len(failures))
sys.exit(1 if failures else 0)
