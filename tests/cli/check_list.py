#!/usr/bin/env python3
"""check_list.py PMUSTAT CPUID_DUMP_DIR: `pmustat list` end to end: options,
filters, --json shape and exit statuses, from tables and CPUID dumps."""

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


def jlist(*args):
    rc, out, err = run(*args, "--json")
    check(rc == 0, "%s: exit %d: %s" % (args, rc, err))
    return json.loads(out) if rc == 0 else {"events": [], "architectural_events": []}


# A whole table by name.
doc = jlist("--table", "skylake")
check(doc["format_version"] == 1 and doc["table"] == "skylake", "skylake header %r" % doc.get("table"))
check(doc["source"]["file"] == "SKL/events/skylake_core.json", "skylake source")
names = {e["name"]: e for e in doc["events"]}
check(len(names) > 500, "skylake has %d events" % len(names))
e = names.get("LONGEST_LAT_CACHE.MISS", {})
check(e.get("event") == 0x2E and e.get("umask") == 0x41 and e.get("cmask") == 0 and
      e.get("inv") is False and e.get("edge") is False and e.get("counters") == [0, 1, 2, 3] and
      e.get("fixed_counter") is None and e.get("description"), "LONGEST_LAT_CACHE.MISS: %r" % e)
e = names.get("INST_RETIRED.ANY", {})
check(e.get("fixed_counter") == 0 and e.get("counters") == [], "INST_RETIRED.ANY: %r" % e)
arch = {a["name"]: a for a in doc["architectural_events"]}
check(arch.get("LLC_MISSES", {}).get("event") == 0x2E and arch["LLC_MISSES"]["available"] is None,
      "architectural LLC_MISSES: %r" % arch.get("LLC_MISSES"))

# Pattern: substring over names and descriptions, case-insensitive; glob.
doc = jlist("--table", "skylake", "longest_lat")
check(sorted(e["name"] for e in doc["events"]) ==
      ["LONGEST_LAT_CACHE.MISS", "LONGEST_LAT_CACHE.REFERENCE"],
      "substring filter: %r" % [e["name"] for e in doc["events"]])
doc = jlist("--table", "skylake", "BR_*.ALL_BRANCHES")
check(sorted(e["name"] for e in doc["events"]) ==
      ["BR_INST_RETIRED.ALL_BRANCHES", "BR_MISP_EXEC.ALL_BRANCHES",
       "BR_MISP_RETIRED.ALL_BRANCHES"],
      "glob filter: %r" % [e["name"] for e in doc["events"]])
doc = jlist("--table", "skylake", "divide unit is busy")
check(any(e["name"].startswith("ARITH.") for e in doc["events"]), "description filter")

# Text output, --long.
rc, out, err = run("--table", "skylake", "LONGEST_LAT_CACHE.MISS", "--long")
check(rc == 0 and "event=0x2e,umask=0x41" in out and "counters 0-3 (HT off: 0-7)" in out,
      "--long: %r" % out)
rc, out, err = run("--table", "skylake", "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", "--long")
check(rc == 0 and "needs MSR 0x1a6 = 0x10001" in out and "or event=0xbb,umask=0x01 with MSR 0x1a7" in out, "--long offcore: %r" % out)

# From CPUID dumps: the table by model and core type, or architectural only.
for dump, table in (("intel-skylake-client-i7-6700k.txt", "skylake"),
                    ("intel-alderlake-hybrid-i9-12900k-ecore.txt", "alderlake_gracemont"),
                    ("intel-cascadelake-sp-xeon-gold-5215.txt", "cascadelakex")):
    doc = jlist("--cpu-dump", os.path.join(dumps, dump))
    check(doc.get("table") == table, "%s: table %r, want %s" % (dump, doc.get("table"), table))
    check(all(a["available"] is not None for a in doc["architectural_events"]),
          "%s: availability from CPUID" % dump)
rc, out, err = run("--cpu-dump", os.path.join(dumps, "intel-core2-penryn-x9650.txt"), "--json")
doc = json.loads(out) if rc == 0 else {}
check(rc == 0 and doc.get("table") is None and doc.get("events") == [] and
      "architectural events only" in err, "core 2: %d %r %r" % (rc, doc.get("table"), err))

# Software events are listed whatever the table, filtered like the rest.
doc = jlist("--table", "skylake", "fault")
check(sorted(e["name"] for e in doc["software_events"]) == ["major-faults", "minor-faults", "page-faults"],
      "software events filtered: %r" % doc.get("software_events"))
doc = jlist("--table", "skylake", "task-clock")
check([(e["name"], e["unit"]) for e in doc["software_events"]] == [("task-clock", "ns")],
      "task-clock: %r" % doc.get("software_events"))
rc, out, err = run("--cpu-dump", os.path.join(dumps, "amd-zen4-ryzen9-7950x.txt"), "page-faults")
check(rc == 0 and "Software events" in out and "page-faults" in out,
      "software events on a CPU without an Intel PMU: %d %r" % (rc, out))

# Failures exit 125 with a reason.
for args, text in ((("--table", "nosuch"), "no event table 'nosuch'"),
                   (("--table", "../events/skylake"), "not a table name"),
                   (("--bogus",), "pmustat list: unknown option --bogus; try 'pmustat list --help'"),
                   (("--table", "skylake", "--cpu-dump", "x"), "give one of them"),
                   (("--cpu-dump", "/nonexistent.txt"), "/nonexistent.txt")):
    rc, out, err = run(*args)
    check(rc == 125 and text in err, "%s: exit %d, %r" % (args, rc, err))
rc, out, err = run("--help")
check(rc == 0 and "usage: pmustat list" in out, "--help")
check("--tables" in out and "--table NAME" in out and "synonyms" in out, "--help describes the options: %r" % out)

# Every name -e takes is listed: perf's generic names, with what each counts in this table.
doc = jlist("--table", "skylake", "cache-misses")
check([g["name"] for g in doc["generic_events"]] == ["cache-misses"] and
      doc["generic_events"][0]["counts"] == "LLC_MISSES", "generic cache-misses: %r" % doc["generic_events"])
check([a["name"] for a in doc["architectural_events"]] == ["LLC_MISSES"],
      "cache-misses finds its architectural event: %r" % doc["architectural_events"])
doc = jlist("--table", "skylake", "L1-dcache-load-misses")
check([(g["name"], g["counts"]) for g in doc["generic_events"]] == [("L1-dcache-load-misses", "L1D.REPLACEMENT")],
      "L1-dcache-load-misses on skylake: %r" % doc["generic_events"])
doc = jlist("--table", "haswell", "dTLB-load-misses")
check([(g["name"], g["counts"]) for g in doc["generic_events"]] ==
      [("dTLB-load-misses", "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK")], "haswell dTLB: %r" % doc["generic_events"])
doc = jlist("--table", "alderlake_goldencove", "L1-icache-load-misses")
check([(g["name"], g["counts"]) for g in doc["generic_events"]] == [("L1-icache-load-misses", None)],
      "a generic name the table cannot express: %r" % doc["generic_events"])
rc, out, err = run("--table", "skylake", "dtlb-load")
check(rc == 0 and "dTLB-load-misses" in out and "= DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK" in out,
      "text listing of generic names: %r" % out[-400:])

# Common synonyms: llc finds the L3 events and LONGEST_LAT_CACHE, icache the instruction cache's.
doc = jlist("--table", "skylake", "llc")
found = [e["name"] for e in doc["events"]]
check("LONGEST_LAT_CACHE.MISS" in found and "MEM_LOAD_RETIRED.L3_MISS" in found, "llc: %r" % found[:20])
doc = jlist("--table", "skylake", "icache")
found = [e["name"] for e in doc["events"]]
check("ICACHE_64B.IFTAG_MISS" in found, "icache: %r" % found[:20])

# Plain words: each word of the pattern in the name or the description, in any order.
for args in (["L2 miss"], ["l2", "miss"]):
    rc, out, err = run("--table", "skylake", *args)
    check(rc == 0 and "L2_RQSTS.ALL_DEMAND_MISS" in out and "FRONTEND_RETIRED.L2_MISS" in out and
          "no event matches" not in out, "list %r: %d %r" % (args, rc, out[:300]))
doc = jlist("--table", "skylake", "l2", "miss")
found = [e["name"] for e in doc["events"]]
check("L2_RQSTS.ALL_DEMAND_MISS" in found and "INST_RETIRED.ANY" not in found, "json l2 miss: %r" % found[:10])
# No event but metrics: say so, and how to list them.
rc, out, err = run("--table", "skylake", "bandwidth")
check(rc == 0 and "(no event matches 'bandwidth'" in out and "pmustat list --metrics 'bandwidth'" in out,
      "list bandwidth: %d %r" % (rc, out[-300:]))
# Found in a later section: no "(no event matches ...)" first.
for args in (["--long", "LLC_MISSES"], ["cache-misses"]):
    rc, out, err = run("--table", "skylake", *args)
    check(rc == 0 and "no event matches" not in out and "LLC_MISSES" in out and
          not out.startswith("Events of table"), "list %r: %r" % (args, out[:300]))

# --tables lists the tables and their CPUs; --table with a typo suggests the nearest.
rc, out, err = run("--tables")
check(rc == 0 and "  skylake " in out and "GenuineIntel-6-5E" in out and "  netburst " in out,
      "--tables: %r" % out[:300])
rc, out, err = run("--tables", "--json", "skylake")
doc = json.loads(out) if rc == 0 else {}
check(sorted(t["name"] for t in doc.get("tables", [])) == ["skylake", "skylakex"], "--tables skylake: %r" % out)
rc, out, err = run("--table", "skylak")
check(rc == 125 and "did you mean skylake" in err, "--table typo: %d %r" % (rc, err))
rc, out, err = run("--tables", "--table", "skylake")
check(rc == 125 and "--tables lists every table" in err, "--tables with --table: %d %r" % (rc, err))

for f in failures:
    print("FAIL:", f)
print("check_list: %d failures" % len(failures))
sys.exit(1 if failures else 0)
