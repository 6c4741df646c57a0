#!/usr/bin/env python3
"""check_metric_reference.py METRIC_EVAL EVENTS_DIR

Every metric of every shipped metric table (events/metrics/*.json), on
generated counts, evaluated twice: by pmustat's evaluator (METRIC_EVAL, a
small C program over src/metrics/) and independently here, by Python's own
parser and arithmetic on Intel's formula text as the converted table keeps
it (Intel writes formulas in Python's expression syntax; only its `> =` for
`>=` needs mending). Both use IEEE doubles in the same order, so the values
must agree to rounding; a Python ZeroDivisionError must be a null with a
"division by zero" reason. Each metric runs with SMT on and off, on counts
with and without zeros.

The Skylake, Ice Lake and Sapphire Rapids metrics that use only core events
of their table must all be among those checked (202, 178 and 207 of them).
Only the repository is read: no ../shared.
"""

import json
import math
import os
import random
import re
import subprocess
import sys

# The constants metric-eval sets (tests/metrics/metric_eval.c, consts_for()).
CONSTANTS = {
    "THREADS_PER_CORE": None,  # 2 with SMT on, else 1
    "DURATIONTIMEINMILLISECONDS": 1500.0,
    "SYSTEM_TSC_FREQ": 2.5e9,
    "SOCKET_COUNT": 2.0,
    "CORES_PER_SOCKET": 4.0,
    "CHAS_PER_SOCKET": 10.0,
    "system.sockets[0].cpus.count * system.socket_count": 16.0,
}
ALL_CORE = {"skylake": 202, "icelake": 178, "sapphirerapids": 207}
ROUNDS = 4  # value sets per metric and SMT setting


def python_formula(text):
    return re.sub(r"([<>=!])\s+=", r"\1=", text)


def pairs(text):
    return [p.split("=", 1) for p in text.split(";")] if text else []


def all_core(events, table_names):
    for _, name in events:
        base = name.split(":")[0]
        if base.upper() not in table_names or ":retire_latency" in name:
            return False
    return True


def values_for(rng, n, with_zeros):
    out = []
    for _ in range(n):
        if with_zeros and rng.random() < 0.35:
            out.append(0.0)
        elif rng.random() < 0.1:
            out.append(float(rng.randint(-5, 300)))  # small, even negative (retire latency)
        else:
            out.append(float(rng.randint(1, 10**9)))
    return out


def reference(formula, events, consts, smt, values):
    scope = {"max": max, "min": min}
    for (alias, _), v in zip(events, values):
        scope[alias] = v
    for alias, name in consts:
        if name == "HYPERTHREADING_ON":
            scope[alias] = 1.0 if smt else 0.0
        elif name == "THREADS_PER_CORE":
            scope[alias] = 2.0 if smt else 1.0
        elif re.fullmatch(r"[0-9]+", name):
            scope[alias] = float(name)
        else:
            scope[alias] = CONSTANTS[name]
    scope["DURATIONTIMEINSECONDS"] = 1.5
    try:
        return float(eval(formula, {"__builtins__": {}}, scope))  # noqa: S307 - Intel's data
    except ZeroDivisionError:
        return None


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, events_dir = sys.argv[1], sys.argv[2]
    mdir = os.path.join(events_dir, "metrics")
    cases, expected = [], []
    core_checked = {t: 0 for t in ALL_CORE}
    skipped = []
    for f in sorted(os.listdir(mdir)):
        if not f.endswith(".json"):
            continue
        table = f[:-5]
        doc = json.load(open(os.path.join(mdir, f)))
        names = {e["n"].upper() for e in json.load(open(os.path.join(events_dir, f)))["events"]}
        for m in doc["metrics"]:
            events, consts = pairs(m.get("e", "")), pairs(m.get("k", ""))
            formula = python_formula(m["f"])
            if "[" in formula:
                # alias[N]: an uncore instance; a float has none in Python.
                skipped.append("%s/%s" % (table, m["n"]))
                continue
            compile(formula, m["n"], "eval")
            rng = random.Random("%s/%s" % (table, m["n"]))
            for smt in (1, 0):
                for r in range(ROUNDS):
                    vals = values_for(rng, len(events), with_zeros=r % 2 == 1)
                    cases.append("%s %s %d %s" % (table, m["n"], smt,
                                                  " ".join(repr(v) for v in vals)))
                    expected.append((table, m["n"], smt, vals,
                                     reference(formula, events, consts, smt, vals)))
            if table in core_checked and all_core(events, names):
                core_checked[table] += 1

    out = subprocess.run([tool, events_dir], input="\n".join(cases) + "\n", text=True,
                         capture_output=True)
    if out.returncode != 0:
        print("metric-eval failed (%d): %s" % (out.returncode, out.stderr.strip()))
        return 1
    got = out.stdout.splitlines()
    problems = []
    if len(got) != len(expected):
        problems.append("%d answers for %d cases" % (len(got), len(expected)))
    nulls = 0
    for (table, name, smt, vals, want), line in zip(expected, got):
        kind, _, rest = line.partition(" ")
        where = "%s/%s (smt %d, values %s)" % (table, name, smt, vals[:6])
        if want is None:
            nulls += 1
            if kind != "null" or "division by zero" not in rest:
                problems.append("%s: pmustat says %r, Python divides by zero" % (where, line))
            continue
        if kind != "value":
            problems.append("%s: pmustat says %r, Python %r" % (where, line, want))
            continue
        value = float(rest)
        if not math.isfinite(want) or not math.isclose(value, want, rel_tol=1e-12, abs_tol=1e-300):
            problems.append("%s: pmustat %r, Python %r" % (where, value, want))
    for t, want in ALL_CORE.items():
        if core_checked[t] != want:
            problems.append("%s: %d all-core metrics checked, want %d" % (t, core_checked[t], want))
    for p in problems[:40]:
        print(p)
    print("check_metric_reference: %d evaluations of %d metrics (%d null by division by zero; "
          "all-core: %s; %d skipped: %s), %d problems" %
          (len(expected), len(expected) // (2 * ROUNDS), nulls,
           ", ".join("%s %d" % kv for kv in core_checked.items()), len(skipped),
           ", ".join(skipped[:4]) + (" ..." if len(skipped) > 4 else ""), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
