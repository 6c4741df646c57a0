#!/usr/bin/env python3
"""check_nb_list.py PMUSTAT CPUID_DUMP_DIR: `pmustat list` for the NetBurst
table, by name and chosen for the two NetBurst CPUID dumps: text, --long,
--json, patterns."""

import json
import os
import subprocess
import sys

pmustat, dumps = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([pmustat, "list", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


rc, out, err = run("--table", "netburst")
check(rc == 0, "list --table netburst: exit %d: %s" % (rc, err))
check("Events of table netburst" in out and "\n  global_power_events\n" in out and
      "\n  instr_retired\n" in out, "events listed: %s" % out[:300])
check("\n  cycles                   global_power_events:RUNNING\n" in out, "aliases listed")
check("Architectural events" not in out, "NetBurst has no architectural events")
check("Software events" in out, "software events still listed")

rc, out, err = run("--table", "netburst", "--long", "instr_retired")
check(rc == 0, "--long: exit %d" % rc)
check("ESCR event select 0x02, CCCR ESCR select 4, on CRU_ESCR0 (0x3b8: counters 12,13,16), "
      "CRU_ESCR1 (0x3b9: counters 14,15,17)" in out, "--long ESCR line: %s" % out)
check(":NBOGUSNTAG       bit  0, default" in out and ":BOGUSTAG         bit  3  " in out,
      "--long masks: %s" % out)
check("global_power_events" not in out.split("Aliases")[0], "pattern filters events")

rc, out, err = run("--table", "netburst", "--json", "BSQ_allocation")
check(rc == 0, "--json: exit %d" % rc)
doc = json.loads(out) if rc == 0 else {}
check(doc.get("pmu") == "netburst" and doc.get("table") == "netburst" and
      doc.get("format_version") == 1 and doc.get("architectural_events") == [], "json header %r" % doc)
ev = {e["name"]: e for e in doc.get("events", [])}.get("BSQ_allocation", {})
check(ev.get("event_select") == 5 and ev.get("cccr_select") == 7 and ev.get("default_mask") == 0 and
      [x["name"] for x in ev.get("escrs", [])] == ["BSU_ESCR0"] and
      ev["escrs"][0]["counters"] == [0, 1] and ev["escrs"][0]["msr"] == 0x3a0,
      "BSQ_allocation json: %r" % ev)
check({"name": "MEM_TYPE2", "bit": 13, "default": False} ==
      {k: v for k, v in ev.get("masks", [{}])[-1].items() if k != "description"}, "masks json")

for dump in ("intel-netburst-northwood-pentium4-2.66ghz.txt", "intel-netburst-prescott-pentium4-640.txt"):
    rc, out, err = run("--cpu-dump", os.path.join(dumps, dump), "--json")
    check(rc == 0 and json.loads(out).get("table") == "netburst", "%s: table %s %s" % (dump, rc, err))
    check("warning" not in err, "%s: pmustat counts there, no warning: %s" % (dump, err))

# The architectural listing names its PMU too, and is otherwise unchanged.
rc, out, err = run("--table", "skylake", "--json", "INST_RETIRED.ANY")
check(rc == 0 and json.loads(out).get("pmu") == "architectural", "skylake pmu key")

for f in failures:
    print("FAIL:", f)
print("check_nb_list: %d problems" % len(failures), file=sys.stderr)
sys.exit(1 if failures else 0)
