"""perfmon_metrics - Intel perfmon metrics JSON into pmustat's metric tables.

Imported by scripts/perfmon2events, which owns the mapfile: a metrics file
is converted when a mapfile row with EventType `metrics` names it, and is
written as OUT_DIR/metrics/<table>.json, where <table> is the event table
of the core row with the same CPU key (and, on hybrid parts, core type and
native model ID). Standard library only; see events/README.md for the
format.
"""

import ast
import json
import os
import re

METRICS_FORMAT_VERSION = 1

# The constants a formula may use (perfmon README 8.3), by Intel's name.
KNOWN_CONSTANTS = {
    "HYPERTHREADING_ON", "THREADS_PER_CORE", "DURATIONTIMEINMILLISECONDS",
    "SYSTEM_TSC_FREQ", "SOCKET_COUNT", "CORES_PER_SOCKET", "CHAS_PER_SOCKET",
    "system.sockets[0].cpus.count * system.socket_count",
}
# Used bare in formulas, without a Constants entry.
BARE_CONSTANTS = {"DURATIONTIMEINSECONDS"}
FUNCTIONS = {"max", "min"}
ALIAS_RE = re.compile(r"[a-z_][a-z0-9_]*")
NUMBER_RE = re.compile(r"[0-9]+")


class MetricsError(Exception):
    pass


def python_text(formula):
    """Intel writes `>=` as `> =` (and `<=` may follow): Python wants one token."""
    return re.sub(r"([<>=!])\s+=", r"\1=", formula)


def check_formula(formula, names, what):
    """The formula is Python's expression syntax; refuse anything beyond the
    subset pmustat's evaluator implements, and any name it does not know."""
    try:
        tree = ast.parse(python_text(formula), mode="eval")
    except SyntaxError as e:
        raise MetricsError("%s: formula does not parse: %s" % (what, e))
    allowed = (ast.Expression, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div,
               ast.UnaryOp, ast.USub, ast.UAdd, ast.IfExp, ast.Compare, ast.Lt, ast.LtE,
               ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.Call, ast.Name, ast.Load,
               ast.Constant, ast.Subscript)
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            raise MetricsError("%s: formula uses %s" % (what, type(node).__name__))
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS \
                    or len(node.args) != 2 or node.keywords:
                raise MetricsError("%s: only max(x, y) and min(x, y) are functions" % what)
        elif isinstance(node, ast.Name):
            if node.id not in names and node.id not in FUNCTIONS and \
                    node.id not in BARE_CONSTANTS:
                raise MetricsError("%s: unknown name %r in the formula" % (what, node.id))
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
                raise MetricsError("%s: constant %r" % (what, node.value))
        elif isinstance(node, ast.Compare) and len(node.ops) != 1:
            raise MetricsError("%s: chained comparison" % what)


TOKEN_RE = re.compile(r"[A-Za-z_#][A-Za-z0-9_.]*|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|\S")


def compact(formula, what):
    """Intel's formula with only the blanks that separate two words (and the
    one inside its `> =`): the same tokens, a seventh smaller."""
    toks = TOKEN_RE.findall(formula)
    if "".join(toks) != "".join(formula.split()):
        raise MetricsError("%s: cannot tokenize %r" % (what, formula))
    out = []
    for i, t in enumerate(toks):
        if i:
            prev = toks[i - 1]
            if (prev[-1].isalnum() or prev[-1] in "_.#") and (t[0].isalnum() or t[0] in "_.#") \
                    or (prev in "<>=!" and t == "="):
                out.append(" ")
        out.append(t)
    return "".join(out)


def used_names(formula):
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", formula))


def legacy_key(name):
    return name.strip()


def convert_threshold(m, legacy, what):
    """Threshold as (formula over aliases, "alias=MetricName;..."), or None.

    Most files give ThresholdMetrics (alias -> legacy name); GRR and SRF
    write the legacy names inline instead, which are replaced by aliases."""
    th = m.get("Threshold") or {}
    formula = " ".join(th.get("Formula", "").split())
    if not formula:
        return None
    pairs = []
    if "ThresholdMetrics" in th:
        for tm in th["ThresholdMetrics"]:
            target = legacy.get(legacy_key(tm["Value"]))
            if target is None:
                raise MetricsError("%s: threshold names unknown metric %r" % (what, tm["Value"]))
            pairs.append((tm["Alias"], target))
    else:
        # Longest legacy names first: one may be a prefix of another.
        for old in sorted(legacy, key=len, reverse=True):
            if old in formula:
                alias = "abcdefghijklmnopqrstuvwxyz"[len(pairs)]
                formula = formula.replace(old, " %s " % alias)
                pairs.append((alias, legacy[old]))
        formula = " ".join(formula.split())
    names = {a for a, _ in pairs}
    try:
        ast.parse(re.sub(r"\|\|?", " or ", re.sub(r"&&?", " and ", python_text(formula))),
                  mode="eval")
    except SyntaxError as e:
        raise MetricsError("%s: threshold %r does not parse: %s" % (what, formula, e))
    for n in used_names(formula):
        if n not in names:
            raise MetricsError("%s: threshold %r uses unknown %r" % (what, formula, n))
    return formula, ";".join("%s=%s" % p for p in pairs)


def convert_metric(m, legacy, what):
    name = m["MetricName"].strip()
    formula = compact(m["Formula"], what)
    used = used_names(formula)
    out = {"n": name, "l": int(m["Level"])}
    parent = (m.get("ParentCategory") or "").strip()
    if parent:
        out["p"] = parent
    category = (m.get("Category") or "").strip()
    if category != "TMA":
        out["c"] = category
    groups = [g for g in (m.get("MetricGroup") or "").split(";") if g.strip()]
    if groups:
        out["g"] = ";".join(g.strip() for g in groups)
    unit = (m.get("UnitOfMeasure") or "").strip()
    if unit:
        out["u"] = unit
    out["d"] = " ".join((m.get("BriefDescription") or "").split())

    aliases = {}
    events = []
    for e in m["Events"]:
        alias, ev = e["Alias"].strip(), e["Name"].strip()
        if not ALIAS_RE.fullmatch(alias) or alias in aliases:
            raise MetricsError("%s: bad or repeated alias %r" % (what, alias))
        if not ev or ";" in ev or " " in ev:
            raise MetricsError("%s: event name %r" % (what, ev))
        aliases[alias] = ev
        events.append("%s=%s" % (alias, ev))
    consts = []
    for c in m["Constants"]:
        alias, cname = c["Alias"].strip(), c["Name"].strip()
        if not ALIAS_RE.fullmatch(alias) or alias in aliases:
            raise MetricsError("%s: bad or repeated alias %r" % (what, alias))
        if cname not in KNOWN_CONSTANTS and not NUMBER_RE.fullmatch(cname):
            raise MetricsError("%s: unknown constant %r" % (what, cname))
        aliases[alias] = cname
        # Intel lists THREADS_PER_CORE with every SMT formula; keep what is used.
        if alias in used:
            consts.append("%s=%s" % (alias, cname))
    check_formula(formula, aliases, what)
    if events:
        out["e"] = ";".join(events)
    if consts:
        out["k"] = ";".join(consts)
    out["f"] = formula
    th = convert_threshold(m, legacy, what)
    if th:
        out["t"], out["tm"] = th
    return out


def convert_metrics_file(path, relname, table, commit):
    with open(path, encoding="ascii") as f:
        doc = json.load(f)
    header = doc.get("Header", {})
    metrics = doc["Metrics"]
    legacy = {}
    seen = set()
    for m in metrics:
        key = m["MetricName"].strip().upper()
        if key in seen:
            raise MetricsError("%s: duplicate metric %s" % (relname, m["MetricName"]))
        seen.add(key)
        legacy[legacy_key(m["LegacyName"])] = m["MetricName"].strip()
    out = [convert_metric(m, legacy, "%s: %s" % (relname, m["MetricName"])) for m in metrics]
    return {
        "format_version": METRICS_FORMAT_VERSION,
        "table": table,
        "source": {
            "file": relname,
            "version": header.get("Version", ""),
            "date": header.get("DatePublished", ""),
            "info": header.get("Info", ""),
            "tma_version": header.get("TmaVersion", ""),
            "copyright": header.get("Copyright", ""),
            "repository": "https://github.com/intel/perfmon",
            "commit": commit,
        },
        "license": "BSD-3-Clause; derived from Intel perfmon data, "
                   "Copyright (c) Intel Corporation, see LICENSE.intel-perfmon",
        "generated_by": "scripts/perfmon2events",
        "metrics": out,
    }


def dump_metrics(doc):
    """One metric per line, in Intel's order: small diffs on updates."""
    head = dict(doc)
    metrics = head.pop("metrics")
    lines = ["{"]
    for k, v in head.items():
        lines.append("%s: %s," % (json.dumps(k), json.dumps(v, sort_keys=True)))
    lines.append('"metrics": [')
    for i, m in enumerate(metrics):
        sep = "," if i + 1 < len(metrics) else ""
        lines.append(json.dumps(m, separators=(",", ":")) + sep)
    lines.append("]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_metrics(src, out_dir, metric_rows, table_of_row, commit):
    """Convert every metrics file named by @metric_rows, each (key, version,
    rel, ctype, native), for the table of the core row with the same key and
    core type (@table_of_row). Returns {(key, ctype, native): table}."""
    files = {}
    chosen = {}
    for key, version, rel, ctype, native in metric_rows:
        table = table_of_row.get((key, ctype, native))
        if table is None:
            raise MetricsError("mapfile.csv: metrics row %s %s has no core row" % (key, rel))
        if files.setdefault(rel, table) != table:
            raise MetricsError("%s serves tables %s and %s" % (rel, files[rel], table))
        chosen[(key, ctype, native)] = (table, rel, version)
    docs = {}
    for rel, table in files.items():
        docs[rel] = convert_metrics_file(os.path.join(src, rel), rel, table, commit)
    for (key, _, _), (table, rel, version) in chosen.items():
        fversion = docs[rel]["source"]["version"]
        if version != "V" + fversion:
            raise MetricsError("mapfile.csv: %s says %s, file says %s" % (rel, version, fversion))
    names = {}
    for rel, table in files.items():
        if table in names:
            raise MetricsError("%s and %s both give metrics for %s" % (names[table], rel, table))
        names[table] = rel
    mdir = os.path.join(out_dir, "metrics")
    os.makedirs(mdir, exist_ok=True)
    for rel, table in sorted(files.items(), key=lambda t: t[1]):
        with open(os.path.join(mdir, table + ".json"), "w", encoding="ascii",
                  newline="\n") as f:
            f.write(dump_metrics(docs[rel]))
    total = sum(len(d["metrics"]) for d in docs.values())
    return {k: v[0] for k, v in chosen.items()}, len(docs), total
