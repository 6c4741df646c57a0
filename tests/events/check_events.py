#!/usr/bin/env python3
"""Validate pmustat's shipped event tables: check_events.py EVENTS_DIR

Every *.json table: format, attribution, schema of each event (known keys,
types, ranges), unique names (case-insensitive), sorted order, fixed-counter
events on the counter their name says, aliases pointing at live events.
mapfile.csv: header, valid EREs, every row naming an existing table and every
table named by a row. Exit 0 when all is well, 1 with one line per problem.
"""

import csv
import json
import os
import re
import sys

EVENT_KEYS = {
    "n": str, "d": str, "e": int, "u": int, "ux": int, "eq": int, "cm": int,
    "inv": int, "edge": int, "any": int, "c": int, "ch": int, "f": int, "x": str,
    "o": int, "p": int, "ta": int, "dep": int, "a": str, "err": str,
}
FLAGS = ("eq", "inv", "edge", "any", "o", "p", "ta", "dep")
BYTE = ("e", "u", "ux", "cm")
FIXED_PREFIX = {0: "INST_RETIRED.", 1: "CPU_CLK_UNHALTED.", 2: "CPU_CLK_UNHALTED.REF",
                3: "TOPDOWN.SLOTS", 4: "TOPDOWN_BAD_SPECULATION.", 5: "TOPDOWN_FE_BOUND.",
                6: "TOPDOWN_RETIRING."}
TOP_KEYS = {"format_version", "table", "source", "license", "generated_by",
            "dropped_events", "events"}

problems = []


def problem(where, what):
    problems.append("%s: %s" % (where, what))


def check_event(where, ev, names):
    for k, v in ev.items():
        t = EVENT_KEYS.get(k)
        if t is None:
            problem(where, "unknown key %r" % k)
        elif not isinstance(v, t) or isinstance(v, bool):
            problem(where, "%s is not %s" % (k, t.__name__))
            return
    name = ev.get("n", "")
    if not re.fullmatch(r"[A-Za-z0-9_.]+", name):
        problem(where, "bad name %r (':' and '=' clash with the -e syntax)" % name)
    if "d" not in ev:
        problem(where, "no description")
    for k in FLAGS:
        if k in ev and ev[k] != 1:
            problem(where, "flag %s is %r, want 1 or absent" % (k, ev[k]))
    if "a" in ev:
        if ev.get("dep") != 1:
            problem(where, "alias without dep")
        extra = set(ev) - {"n", "d", "dep", "a"}
        if extra:
            problem(where, "alias carries an encoding %s" % sorted(extra))
        target = names.get(ev["a"].upper())
        if target is None or "a" in target or target.get("dep"):
            problem(where, "alias of %r, which is not a live event" % ev["a"])
        return
    for k in BYTE:
        if k in ev and not 0 <= ev[k] <= 0xFF:
            problem(where, "%s=%d out of 0..255" % (k, ev[k]))
    if "e" not in ev or "u" not in ev:
        problem(where, "no event code or umask")
    if ("f" in ev) == ("c" in ev):
        problem(where, "needs exactly one of f (fixed) and c (counters)")
    if "f" in ev:
        f = ev["f"]
        if f not in FIXED_PREFIX or not name.startswith(FIXED_PREFIX[f]):
            problem(where, "fixed counter %r does not count %s" % (f, name))
        if ev.get("e") != 0 or ev.get("u") != f + 1:
            problem(where, "fixed pseudo-encoding is not 0x00/%d" % (f + 1))
        if "x" in ev or "ch" in ev:
            problem(where, "fixed event with extra MSR or HT-off counters")
    for k in ("c", "ch"):
        if k in ev and not 0 < ev[k] < (1 << 32):
            problem(where, "%s=%r is not a non-empty 32-bit mask" % (k, ev[k]))
    if "ch" in ev and ev["ch"] == ev.get("c"):
        problem(where, "ch equal to c should be omitted")
    if "x" in ev:
        variants = []
        for v in ev["x"].split(";"):
            m = re.fullmatch(r"([0-9a-f]{1,2})/([0-9a-f]{1,2})/([0-9a-f]{1,8})=(0x[0-9a-f]{1,16})", v)
            if not m:
                problem(where, "x variant %r is not code/umask/msr=0xvalue" % v)
                continue
            variants.append([int(m.group(i), 16) for i in (1, 2, 3)])
            if variants[-1][2] == 0:
                problem(where, "x variant %r names MSR 0" % v)
        if variants and variants[0][:2] != [ev.get("e"), ev.get("u")]:
            problem(where, "x[0] does not match e/u")
        msrs = [v[2] for v in variants]
        if len(set(msrs)) != len(msrs):
            problem(where, "the same MSR twice in x")


def check_table(path, name):
    try:
        with open(path, encoding="ascii") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        problem(path, "cannot load: %s" % e)
        return
    if set(doc) != TOP_KEYS:
        problem(path, "top-level keys %s" % sorted(doc))
    if doc.get("format_version") != 1:
        problem(path, "format_version is not 1")
    if doc.get("table") != name:
        problem(path, "table is %r, file name says %r" % (doc.get("table"), name))
    src = doc.get("source", {})
    for k in ("file", "version", "date", "copyright", "repository", "commit"):
        if not src.get(k):
            problem(path, "source.%s is missing (attribution)" % k)
    if not re.fullmatch(r"[0-9a-f]{40}", src.get("commit", "")):
        problem(path, "source.commit is not a git commit")
    if "BSD-3-Clause" not in doc.get("license", "") or "LICENSE.intel-perfmon" not in doc.get("license", ""):
        problem(path, "license does not name BSD-3-Clause and LICENSE.intel-perfmon")
    events = doc.get("events", [])
    names = {}
    for i, ev in enumerate(events):
        key = ev.get("n", "").upper()
        if key in names:
            problem("%s: %s" % (path, ev.get("n")), "duplicate name (case-insensitive)")
        names[key] = ev
    order = [ev.get("n", "").upper() for ev in events]
    if order != sorted(order):
        problem(path, "events are not sorted by upper-cased name")
    for ev in events:
        check_event("%s: %s" % (path, ev.get("n")), ev, names)
    return len(events)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    tables = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    total = 0
    for t in tables:
        with open(os.path.join(d, t + ".json"), encoding="ascii") as f:
            if "pmu" in json.load(f):
                continue	# another PMU's hand-written table: check_netburst.py
        total += check_table(os.path.join(d, t + ".json"), t) or 0
    for f in ("LICENSE.intel-perfmon", "README.md"):
        if not os.path.isfile(os.path.join(d, f)):
            problem(d, "%s is missing" % f)
    lic = open(os.path.join(d, "LICENSE.intel-perfmon"), encoding="utf-8").read() \
        if os.path.isfile(os.path.join(d, "LICENSE.intel-perfmon")) else ""
    if "Intel Corporation" not in lic or "Redistribution and use" not in lic:
        problem(d, "LICENSE.intel-perfmon is not Intel's BSD-3 license")

    mpath = os.path.join(d, "mapfile.csv")
    used = set()
    with open(mpath, encoding="ascii") as f:
        lines = [(n, l) for n, l in enumerate(f.read().split("\n"), 1) if l and not l.startswith("#")]
    if not lines or lines[0][1] != "Family-model,Core Type,Native Model ID,Table,Version,Metrics":
        problem(mpath, "bad header")
    metric_tables = sorted(f[:-5] for f in os.listdir(os.path.join(d, "metrics"))
                           if f.endswith(".json")) if os.path.isdir(os.path.join(d, "metrics")) else []
    metrics_used = set()
    keys = set()
    for n, line in lines[1:]:
        where = "%s:%d" % (mpath, n)
        row = next(csv.reader([line]))
        if len(row) != 6:
            problem(where, "%d fields" % len(row))
            continue
        key, ctype, native, table, version, metrics = row
        if metrics and metrics not in metric_tables:
            problem(where, "metrics %r does not exist" % metrics)
        if metrics and metrics != table:
            problem(where, "metrics %r for table %r (they must be the same core's)" %
                    (metrics, table))
        if metrics:
            metrics_used.add(metrics)
        try:
            re.compile(key)
        except re.error as e:
            problem(where, "bad ERE %r: %s" % (key, e))
        if not key.startswith("GenuineIntel-"):
            problem(where, "key %r is not an Intel key" % key)
        if bool(ctype) != bool(native):
            problem(where, "Core Type and Native Model ID go together")
        if ctype and ctype not in ("0x20", "0x40"):
            problem(where, "core type %r" % ctype)
        if native and not re.fullmatch(r"0x[0-9A-Fa-f]{6}", native):
            problem(where, "native model ID %r" % native)
        if table not in tables:
            problem(where, "table %r does not exist" % table)
        if (key, ctype, native) in keys:
            problem(where, "duplicate row for %s %s %s" % (key, ctype, native))
        keys.add((key, ctype, native))
        used.add(table)
    for t in set(tables) - used:
        problem(d, "table %s is named by no mapfile row" % t)
    for t in set(metric_tables) - metrics_used:
        problem(d, "metrics/%s.json is named by no mapfile row" % t)

    for p in problems:
        print(p)
    print("check_events: %d tables, %d events, %d mapfile rows, %d problems" %
          (len(tables), total, len(lines) - 1, len(problems)), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
