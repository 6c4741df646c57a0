#!/usr/bin/env python3
"""check_nb_data.py EVENTS_DIR: validate events/netburst.json on its own,
independently of the C loader: keys and types, sorted unique names, and every
event's ESCRs and CCCR select against the SDM's ESCR-select table, written
here a second time in the SDM's own shape (per counter group, the ESCR each
select value names) rather than src/netburst/nb_regs.c's per-ESCR list."""

import json
import os
import re
import sys

# SDM table "Performance Counter MSRs and Associated CCCR and ESCR MSRs":
# for each counter group, ESCR select value -> the ESCR pair (even ESCR
# feeds the first counters of the group, odd ESCR the others).
GROUPS = {
    "BPU": {7: "BSU", 6: "FSB", 2: "MOB", 4: "PMH", 0: "BPU", 1: "IS", 3: "ITLB", 5: "IX"},
    "MS": {0: "MS", 2: "TBPU", 1: "TC"},
    "FLAME": {1: "FIRM", 0: "FLAME", 5: "DAC", 2: "SAAT", 3: "U2L"},
    "IQ": {4: "CRU01", 5: "CRU23", 6: "CRU45", 0: "IQ", 2: "RAT", 3: "SSU", 1: "ALF"},
}
EVENT_KEYS = {"n", "d", "es", "escr", "cs", "m", "dm", "ar", "tag", "ti", "models", "note"}
# The thread-independent (TI) events of the SDM's table "Event Mask
# Qualification for Logical Processors" (vol. 3B, 19-34); every other is TS.
TI_EVENTS = {"sse_input_assist", "64bit_mmx_uop", "packed_dp_uop", "packed_sp_uop", "scalar_dp_uop",
             "scalar_sp_uop", "128bit_mmx_uop", "x87_fp_uop", "x87_simd_moves_uop", "fsb_data_activity",
             "page_walk_type", "tc_deliver_mode", "wc_buffer"}
problems = []


def escr_select(name):
    """(group, select) of an ESCR name such as CRU_ESCR3, or None."""
    m = re.fullmatch(r"([A-Z0-9]+)_ESCR([0-5])", name)
    if not m:
        return None
    unit, idx = m.group(1), int(m.group(2))
    if unit == "CRU":
        unit = "CRU%d%d" % (idx // 2 * 2, idx // 2 * 2 + 1)
    for group, sels in GROUPS.items():
        for sel, u in sels.items():
            if u == unit:
                return group, sel
    return None


def main():
    path = os.path.join(sys.argv[1], "netburst.json")
    with open(path, encoding="ascii") as f:
        doc = json.load(f)
    if doc.get("pmu") != "netburst" or doc.get("table") != "netburst" or doc.get("format_version") != 1:
        problems.append("header: pmu/table/format_version")
    if "MIT" not in doc.get("license", "") or not doc.get("source", {}).get("title"):
        problems.append("license or source.title missing")
    names = [e.get("n", "") for e in doc["events"]]
    if names != sorted(names, key=str.lower) or len({n.lower() for n in names}) != len(names):
        problems.append("events are not sorted by lower-cased name, or a name repeats")
    for e in doc["events"]:
        where = e.get("n", "?")
        if set(e) - EVENT_KEYS or not {"n", "d", "es", "escr", "cs", "m", "dm"} <= set(e):
            problems.append("%s: keys %s" % (where, sorted(e)))
            continue
        if not re.fullmatch(r"0x[0-3][0-9a-f]", e["es"]):
            problems.append("%s: es %r" % (where, e["es"]))
        groups = set()
        for x in e["escr"]:
            gs = escr_select(x)
            if gs is None:
                problems.append("%s: unknown ESCR %s" % (where, x))
            elif gs[1] != e["cs"]:
                problems.append("%s: %s is select %d, table says %d" % (where, x, gs[1], e["cs"]))
            else:
                groups.add(gs[0])
        if len(groups) > 1:
            problems.append("%s: ESCRs of different counter groups %s" % (where, groups))
        bits = [m["b"] for m in e["m"]]
        if len(set(bits)) != len(bits) or any(not 0 <= b <= 15 for b in bits):
            problems.append("%s: mask bits %s" % (where, bits))
        if not set(e["dm"]) <= {m["n"] for m in e["m"]}:
            problems.append("%s: default masks %s" % (where, e["dm"]))
        if e.get("tag") and not e.get("ar"):
            problems.append("%s: tagging outside the at-retirement table" % where)
        if bool(e.get("ti")) != (e["n"].lower() in TI_EVENTS):
            problems.append("%s: ti %r, the SDM says %s" % (where, e.get("ti"),
                            "TI" if e["n"].lower() in TI_EVENTS else "TS"))
    byname = {e["n"].lower(): e for e in doc["events"]}
    for a in doc["aliases"]:
        parts = a["a"].split(":")
        ev = byname.get(parts[0].lower())
        if not ev or not parts[1:] or not set(parts[1:]) <= {m["n"] for m in ev["m"]}:
            problems.append("alias %s: target %s" % (a["n"], a["a"]))
    for p in problems:
        print(p)
    print("check_nb_data: %d events, %d aliases, %d problems" %
          (len(doc["events"]), len(doc["aliases"]), len(problems)), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
