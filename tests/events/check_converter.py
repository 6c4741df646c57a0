#!/usr/bin/env python3
"""check_converter.py SOURCE_ROOT: regenerate events/ (tables, metrics/ and
the mapfile) from ../shared/perfmon into a temporary directory and require
byte-identical files; then check every converted event and metric against the
perfmon input, parsed independently here.
Exit 77 (skip) when SOURCE_ROOT/../shared/perfmon is absent."""

import csv
import filecmp
import json
import os
import re
import subprocess
import sys
import tempfile

ONE_BASED = {"NehalemEP", "NehalemEX", "WestmereEP-SP", "WestmereEP-DP", "WestmereEX",
             "bonnell", "Silvermont"}


def num(s):
    s = s.strip()
    return int(s, 16) if s[:2].lower() == "0x" else int(s)


def tokens(formula):
    """Words, numbers and single characters: blanks do not matter."""
    return re.findall(r"[A-Za-z_#][A-Za-z0-9_.]*|[0-9.]+(?:[eE][-+]?[0-9]+)?|\S", formula)


def check_metrics(perfmon, events, problems):
    """Every converted metric against its upstream metric; every mapfile row
    with a metrics file against Intel's metrics rows. Returns the count."""
    checked = 0
    mdir = os.path.join(events, "metrics")
    upstream_rows = {}
    with open(os.path.join(perfmon, "mapfile.csv"), encoding="ascii") as f:
        for row in list(csv.reader(f))[1:]:
            row = row + [""] * (7 - len(row))
            if row[3] == "metrics":
                upstream_rows[(row[0], row[4], row[5])] = row[2].lstrip("/")
    with open(os.path.join(events, "mapfile.csv"), encoding="ascii") as f:
        rows = [r for r in csv.reader(l for l in f if not l.startswith("#"))][1:]
    for key, ctype, native, table, _, metrics in rows:
        want = upstream_rows.get((key, ctype, native))
        if bool(want) != bool(metrics):
            problems.append("mapfile %s %s: metrics %r, upstream %r" % (key, ctype, metrics, want))
        elif metrics:
            got = json.load(open(os.path.join(mdir, metrics + ".json")))["source"]["file"]
            if got != want:
                problems.append("mapfile %s: metrics/%s.json is %s, upstream %s" %
                                (key, metrics, got, want))
    for f in sorted(os.listdir(mdir)):
        doc = json.load(open(os.path.join(mdir, f)))
        src = json.load(open(os.path.join(perfmon, doc["source"]["file"])))
        if src["Header"]["Version"] != doc["source"]["version"]:
            problems.append("metrics/%s: version differs from the input" % f)
        conv = {m["n"]: m for m in doc["metrics"]}
        if len(conv) != len(src["Metrics"]):
            problems.append("metrics/%s: %d metrics, input has %d" %
                            (f, len(conv), len(src["Metrics"])))
        legacy = {m["LegacyName"]: m["MetricName"] for m in src["Metrics"]}
        for m in src["Metrics"]:
            where = "metrics/%s: %s" % (f, m["MetricName"])
            c = conv.get(m["MetricName"])
            if c is None:
                problems.append(where + ": missing")
                continue
            checked += 1
            if tokens(c["f"]) != tokens(m["Formula"]):
                problems.append(where + ": formula differs from Intel's")
            want_ev = ["%s=%s" % (e["Alias"], e["Name"]) for e in m["Events"]]
            if (c["e"].split(";") if "e" in c else []) != want_ev:
                problems.append(where + ": events differ")
            used = set(tokens(m["Formula"]))
            want_k = ["%s=%s" % (k["Alias"], k["Name"]) for k in m["Constants"]
                      if k["Alias"] in used]
            if c.get("k", "").split(";") != (want_k or [""]):
                problems.append(where + ": constants %r, want %r" % (c.get("k"), want_k))
            if c["l"] != m["Level"] or c.get("u", "") != m["UnitOfMeasure"] or \
                    c.get("g", "").split(";") != [g for g in m.get("MetricGroup", "").split(";")
                                                  if g] + ([] if m.get("MetricGroup") else [""]):
                problems.append(where + ": level, unit or groups differ")
            if c.get("p", "") != m.get("ParentCategory", "") or \
                    c.get("c", "TMA") != m.get("Category", ""):
                problems.append(where + ": parent or category differ")
            if c["d"] != " ".join(m["BriefDescription"].split()):
                problems.append(where + ": description differs")
            th = m.get("Threshold") or {}
            if bool(th.get("Formula")) != ("t" in c):
                problems.append(where + ": threshold dropped or invented")
            elif "t" in c:
                tm = dict(p.split("=", 1) for p in c["tm"].split(";"))
                text = th["Formula"]
                pairs = [(t["Alias"], t["Value"]) for t in th.get("ThresholdMetrics", [])]
                if not pairs:  # legacy names inline: undo the aliases instead
                    text = c["t"]
                    pairs = [(a, next(k for k, v in legacy.items() if v == n))
                             for a, n in tm.items()]
                for alias, old in pairs:
                    if tm.get(alias) != legacy.get(old):
                        problems.append(where + ": threshold alias %s is %r, want %r" %
                                        (alias, tm.get(alias), legacy.get(old)))
                if tokens(text) != tokens(c["t"]):
                    problems.append(where + ": threshold formula differs")
    return checked


def hand_written(path):
    """Tables written by hand for another PMU (events/README.md): not converted."""
    with open(path, encoding="ascii") as f:
        return "pmu" in json.load(f)


def main():
    root = sys.argv[1]
    perfmon = os.path.normpath(os.path.join(root, "..", "shared", "perfmon"))
    events = os.path.join(root, "events")
    if not os.path.isfile(os.path.join(perfmon, "mapfile.csv")):
        print("skip: %s is absent" % perfmon)
        return 77
    problems = []
    with tempfile.TemporaryDirectory(prefix="pmustat-events-") as tmp:
        for run in ("a", "b"):
            out = os.path.join(tmp, run)
            subprocess.run([sys.executable, os.path.join(root, "scripts", "perfmon2events"),
                            perfmon, out], check=True)
        def listing(top):
            out = [f for f in os.listdir(top) if f.endswith(".csv") or
                   (f.endswith(".json") and not hand_written(os.path.join(top, f)))]
            if os.path.isdir(os.path.join(top, "metrics")):
                out += ["metrics/" + f for f in os.listdir(os.path.join(top, "metrics"))]
            return sorted(out)
        generated = listing(os.path.join(tmp, "a"))
        shipped = listing(events)
        if generated != shipped:
            problems.append("file sets differ: generated %s, shipped %s" %
                            (sorted(set(generated) - set(shipped)),
                             sorted(set(shipped) - set(generated))))
        for f in generated:
            a, b = os.path.join(tmp, "a", f), os.path.join(tmp, "b", f)
            if not filecmp.cmp(a, b, shallow=False):
                problems.append("%s: two runs differ (not deterministic)" % f)
            s = os.path.join(events, f)
            if os.path.exists(s) and not filecmp.cmp(a, s, shallow=False):
                problems.append("%s: events/ is stale; run scripts/perfmon2events %s events" %
                                (f, perfmon))

    # Independent cross-check of every event against the input.
    checked = 0
    for f in sorted(os.listdir(events)):
        if not f.endswith(".json") or hand_written(os.path.join(events, f)):
            continue
        table = json.load(open(os.path.join(events, f)))
        src = json.load(open(os.path.join(perfmon, table["source"]["file"])))
        if src["Header"]["Version"] != table["source"]["version"]:
            problems.append("%s: version %s, input %s" % (f, table["source"]["version"],
                                                           src["Header"]["Version"]))
        conv = {e["n"]: e for e in table["events"]}
        base = os.path.basename(table["source"]["file"])[:-len("_core.json")]
        for ev in src["Events"]:
            name = ev["EventName"]
            if ":" in name:
                if name in conv:
                    problems.append("%s: %s should have been dropped" % (f, name))
                continue
            c = conv.get(name)
            where = "%s: %s" % (f, name)
            if c is None:
                problems.append(where + ": missing")
                continue
            checked += 1
            if "a" in c:
                c = conv[c["a"]]
            codes = [num(x) for x in ev["EventCode"].split(",")]
            umasks = [num(x) for x in ev["UMask"].split(",")]
            ctr = ev["Counter"]
            if ctr.startswith("Fixed counter"):
                n = int(ctr.split()[-1]) - (1 if base in ONE_BASED else 0)
                if name == "CPU_CLK_UNHALTED.THREAD_ANY":
                    n = 1
                if c.get("f") != n:
                    problems.append(where + ": fixed %r, want %d" % (c.get("f"), n))
                continue
            mask = sum(1 << int(i) for i in ctr.split(","))
            if c.get("c") != mask:
                problems.append(where + ": counters %r, want %#x" % (c.get("c"), mask))
            if c["e"] not in codes or c["u"] not in umasks:
                problems.append(where + ": encoding %#x/%#x not in %s/%s" %
                                (c["e"], c["u"], codes, umasks))
            if c.get("cm", 0) != int(ev["CounterMask"]):
                problems.append(where + ": cmask")
            for k, key in (("inv", "Invert"), ("edge", "EdgeDetect"), ("any", "AnyThread")):
                if c.get(k, 0) != int(ev.get(key, "0")):
                    problems.append(where + ": " + k)
            ux = ev.get("UMaskExt", ev.get("UMask2", "0"))
            if c.get("ux", 0) != num(ux):
                problems.append(where + ": UMaskExt")
            msrs = [num(x) for x in ev["MSRIndex"].split(",") if num(x)]
            xs = [v.replace("=", "/").split("/") for v in c["x"].split(";")] if "x" in c else []
            got = sorted(int(x[2], 16) for x in xs)
            if sorted(msrs) != got and not (len(msrs) == 1 and got == msrs):
                problems.append(where + ": MSRs %s, want %s" % (got, msrs))
            for x in xs:
                if int(x[3], 16) != num(ev["MSRValue"]):
                    problems.append(where + ": MSR value %s" % x[3])
            pebs_only = ev.get("PEBS") == "2" or ev.get("CollectPEBSRecord") == "3"
            if bool(c.get("p")) != pebs_only:
                problems.append(where + ": PEBS-only flag")
            if bool(c.get("ta")) != (ev.get("TakenAlone", "0") == "1"):
                problems.append(where + ": TakenAlone flag")
    metrics = check_metrics(perfmon, events, problems)
    for p in problems:
        print(p)
    print("check_converter: %d events and %d metrics checked against the input, %d problems" %
          (checked, metrics, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
