#!/usr/bin/env python3
"""check_converter.py SOURCE_ROOT: regenerate events/ from ../shared/perfmon
into a temporary directory and require byte-identical files; then check every
converted event against the perfmon input, parsed independently here.
Exit 77 (skip) when SOURCE_ROOT/../shared/perfmon is absent."""

import filecmp
import json
import os
import subprocess
import sys
import tempfile

ONE_BASED = {"NehalemEP", "NehalemEX", "WestmereEP-SP", "WestmereEP-DP", "WestmereEX",
             "bonnell", "Silvermont"}


def num(s):
    s = s.strip()
    return int(s, 16) if s[:2].lower() == "0x" else int(s)


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
        generated = sorted(os.listdir(os.path.join(tmp, "a")))
        shipped = sorted(f for f in os.listdir(events) if f.endswith(".csv") or
                         (f.endswith(".json") and not hand_written(os.path.join(events, f))))
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
    for p in problems:
        print(p)
    print("check_converter: %d events checked against the input, %d problems" %
          (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
