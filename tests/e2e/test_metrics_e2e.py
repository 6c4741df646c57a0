#!/usr/bin/env python3
"""-M end to end: the real pmustat under the emulated PMU (run-under-emu)
counting emu-workload, which retires exact numbers of events, so every
metric value is known. Each value is checked twice: against the number
worked out by hand for the workload, and against Intel's formula from the
shipped metric table, evaluated here by Python on the counts pmustat
reported for the metric's run (the same IEEE doubles). Also: all events of
one metric come from one run, batches when they do not fit, refusals,
null values with a reason, --check on metrics, -r statistics, the run's
duration, the CSV and JSON records (validated against the schema). After
each run the emulated MSRs must be as they were (pmu-emu diff).

    test_metrics_e2e.py PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD PMU_EMU SCHEMA EVENTS_DIR
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

PMUSTAT, RUN_UNDER_EMU, WORKLOAD, PMU_EMU, SCHEMA, EVENTS = map(os.path.abspath, sys.argv[1:7])
del sys.argv[1:7]

try:
    import jsonschema
except ImportError:  # the schema checks skip; the others run
    jsonschema = None

CORE = max(os.sched_getaffinity(0))

# Skylake encodings (code:umask) of the level-1 events.
IDQ_NOT_DELIVERED = "0x9c:0x01"   # IDQ_UOPS_NOT_DELIVERED.CORE
CLK = "0x3c:0x00"                 # CPU_CLK_UNHALTED.THREAD(_ANY): fixed counter 1 or a GP counter
UOPS_ISSUED = "0x0e:0x01"         # UOPS_ISSUED.ANY
RETIRE_SLOTS = "0xc2:0x02"        # UOPS_RETIRED.RETIRE_SLOTS
RECOVERY = "0x0d:0x01"            # INT_MISC.RECOVERY_CYCLES(_ANY)
INST = "0xc0:0x00"                # INST_RETIRED.ANY
LLC_MISS = "0x2e:0x41"            # LONGEST_LAT_CACHE.MISS

# With SMT on (the emulated Skylake has two threads per core) the slots
# are 4 x THREAD_ANY / 2 = 20000, so: Frontend 4000 / 20000 = 20 %, Bad
# Speculation (9000 - 8000 + 4 x 500 / 2) / 20000 = 10 %, Retiring
# 8000 / 20000 = 40 %, Backend the rest, 30 %.
L1 = [IDQ_NOT_DELIVERED + ":4000", CLK + ":10000", UOPS_ISSUED + ":9000", RETIRE_SLOTS + ":8000",
      RECOVERY + ":500", INST + ":15000"]
L1_EXPECTED = {"Frontend_Bound": 20.0, "Bad_Speculation": 10.0, "Backend_Bound": 30.0, "Retiring": 40.0}

TABLES = {}
for _name in ("skylake", "icelake", "skylakex"):
    with open(os.path.join(EVENTS, "metrics", _name + ".json")) as f:
        TABLES[_name] = {m["n"]: m for m in json.load(f)["metrics"]}
SKYLAKE = TABLES["skylake"]
with open(SCHEMA) as f:
    SCHEMA_DOC = json.load(f)


def pairs(text):
    return [p.split("=", 1) for p in text.split(";")] if text else []


def reference(metric, counts, smt_on, duration_ms=None, table="skylake"):
    """Intel's formula of @metric by Python, events from @counts (name -> value)."""
    m = TABLES[table][metric]
    scope = {"max": max, "min": min}
    for alias, name in pairs(m.get("e", "")):
        # An event of the branch not taken (THREAD with SMT on) is not counted: NaN if it were read.
        # TOPDOWN.SLOTS:perf_metrics is fixed counter 3's count, the row TOPDOWN.SLOTS.
        name = name.upper().replace(":PERF_METRICS", "")
        scope[alias] = float(counts.get(name, math.nan))
    for alias, name in pairs(m.get("k", "")):
        if name == "HYPERTHREADING_ON":
            scope[alias] = 1.0 if smt_on else 0.0
        elif name == "DURATIONTIMEINMILLISECONDS":
            scope[alias] = duration_ms
        else:
            raise AssertionError("constant %s not set by this test" % name)
    return eval(re.sub(r"([<>=!])\s+=", r"\1=", m["f"]), {"__builtins__": {}}, scope)


class MetricsE2E(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pmustat-metrics-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def pmustat(self, args, retires, model="skylake", emu=(), command=None):
        before, after = os.path.join(self.dir, "before"), os.path.join(self.dir, "after")
        if command is None:
            command = [WORKLOAD, "--quiet"]
            for r in retires:
                command += ["--retire", r]
        argv = [RUN_UNDER_EMU, "--model", model, "--cpus", str(CORE + 1)] + list(emu) + [
            "--save-before", before, "--save-after", after, "--",
            PMUSTAT, "-C", str(CORE)] + args + ["--"] + command
        p = subprocess.run(argv, cwd=self.dir, capture_output=True, text=True, timeout=60)
        if os.path.exists(after):
            d = subprocess.run([PMU_EMU, "diff", before, after], capture_output=True, text=True)
            # The watchdog's own counter counts the workload's cycles: its change is not ours.
            diffs = [line for line in d.stdout.splitlines()
                     if "difference" not in line and not ("--watchdog" in emu and "IA32_FIXED_CTR1 " in line)]
            self.assertEqual(diffs, [], "MSRs not restored:\n" + d.stdout + d.stderr)
        return p

    def record(self, args, retires, **kw):
        p = self.pmustat(args + ["--json"], retires, **kw)
        rec = json.loads(p.stderr)
        if jsonschema is not None:
            jsonschema.validate(rec, SCHEMA_DOC)
        return p.returncode, rec

    @staticmethod
    def counts_of_run(rec, run):
        return {e["requested"].upper(): e["value"] for e in rec["events"] if e["run"] == run}

    @staticmethod
    def metric(rec, name):
        hits = [m for m in rec["metrics"] if m["name"] == name]
        assert len(hits) == 1, "metric %s: %r" % (name, rec["metrics"])
        return hits[0]

    def assert_exact(self, rec, name, expected, smt_on=True, table="skylake"):
        m = self.metric(rec, name)
        self.assertIsNotNone(m["value"], "%s: %s" % (name, m["reason"]))
        self.assertTrue(math.isclose(m["value"], expected, rel_tol=1e-12, abs_tol=1e-12),
                        "%s = %r, expected %r" % (name, m["value"], expected))
        counts = self.counts_of_run(rec, m["run"])
        self.assertEqual(m["value"], reference(name, counts, smt_on, table=table), name)
        return m

    def test_tmal1_exact_from_one_run(self):
        status, rec = self.record(["-M", "TmaL1"], L1)
        self.assertEqual(status, 0, rec["error"])
        self.assertEqual(rec["runs"], 1)
        for name, value in L1_EXPECTED.items():
            m = self.assert_exact(rec, name, value)
            self.assertEqual(m["run"], 1)
            self.assertEqual(m["unit"], "percent")
            self.assertIn("TmaL1", m["group"].split(";"))
        self.assert_exact(rec, "Info_Thread_SLOTS", 20000.0)
        self.assert_exact(rec, "Info_Core_CoreIPC", 3.0)
        # Intel's thresholds: Frontend_Bound > 15, Backend_Bound > 20, Bad_Speculation > 15.
        self.assertTrue(self.metric(rec, "Frontend_Bound")["flagged"])
        self.assertTrue(self.metric(rec, "Backend_Bound")["flagged"])
        self.assertFalse(self.metric(rec, "Bad_Speculation")["flagged"])
        # Retiring's threshold reads Heavy_Operations, which TmaL1 does not count: unknown.
        self.assertIsNone(self.metric(rec, "Retiring")["flagged"])
        # With SMT on, the per-core events: AnyThread, not the thread's own.
        names = {e["requested"] for e in rec["events"]}
        self.assertIn("CPU_CLK_UNHALTED.THREAD_ANY", names)
        self.assertNotIn("CPU_CLK_UNHALTED.THREAD", names)

    def test_perf_names_and_text_and_csv(self):
        p = self.pmustat(["-M", "TopdownL1"], L1)
        self.assertEqual(p.returncode, 0, p.stderr)
        for name, value in L1_EXPECTED.items():
            self.assertRegex(p.stderr, r"\n +%.2f %%\s+%s" % (value, name))
        self.assertRegex(p.stderr, r"20\.00 %\s+Frontend_Bound\s+<== past Intel's threshold \(a > 15\)")
        p = self.pmustat(["-M", "tma_frontend_bound,Retiring", "-x", ";"], L1)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [line.split(";") for line in p.stderr.splitlines() if line.startswith("metric;")]
        # The "metric" record's 16 fixed columns: type, cpu, value, unit, name, run, status, reason, flagged, ...
        self.assertEqual([len(r) for r in rows], [16, 16])
        self.assertEqual([r[:9] for r in rows], [["metric", "", "20", "percent", "Frontend_Bound", "1", "counted", "", "1"],
                                                 ["metric", "", "40", "percent", "Retiring", "1", "counted", "", ""]])

    def test_batches_keep_each_metric_in_one_run(self):
        # The NMI watchdog holds fixed counter 1: the cycles go on a GP
        # counter and TmaL1 no longer fits 4 counters in one run.
        status, rec = self.record(["-M", "TmaL1"], L1, emu=["--watchdog"])
        self.assertEqual(status, 0, rec["error"])
        self.assertEqual(rec["runs"], 2)
        runs = {name: self.assert_exact(rec, name, value)["run"] for name, value in L1_EXPECTED.items()}
        self.assertEqual(set(runs.values()), {1, 2})
        # The events both runs need are counted in both.
        clocks = [e for e in rec["events"] if e["requested"] == "CPU_CLK_UNHALTED.THREAD_ANY"]
        self.assertEqual(sorted(e["run"] for e in clocks), [1, 2])
        self.assertTrue(all(e["counter"].startswith("pmc") for e in clocks))

    def test_e_events_do_not_split_a_metric(self):
        # The -e event comes first, but TmaL1's four GP events fill run 1
        # together; the -e event takes run 2.
        status, rec = self.record(["-e", "BR_MISP_RETIRED.ALL_BRANCHES", "-M", "TmaL1"], L1 + ["0xc5:0x00:3"])
        self.assertEqual(status, 0, rec["error"])
        self.assertEqual(rec["runs"], 2)
        for name, value in L1_EXPECTED.items():
            self.assertEqual(self.assert_exact(rec, name, value)["run"], 1)
        self.assertEqual([(e["value"], e["run"]) for e in rec["events"]
                          if e["requested"] == "BR_MISP_RETIRED.ALL_BRANCHES"], [(3, 2)])

    def test_events_asked_with_e_are_shared(self):
        status, rec = self.record(["-e", "INST_RETIRED.ANY,LONGEST_LAT_CACHE.MISS", "-M", "Info_Thread_IPC"],
                                  [INST + ":3000", CLK + ":2000", LLC_MISS + ":7"])
        self.assertEqual(status, 0, rec["error"])
        self.assertEqual([e["requested"] for e in rec["events"]],
                         ["INST_RETIRED.ANY", "LONGEST_LAT_CACHE.MISS", "CPU_CLK_UNHALTED.THREAD"])
        self.assert_exact(rec, "Info_Thread_IPC", 1.5)

    def test_check_on_metrics(self):
        work = [INST + ":15000", CLK + ":10000"]
        p = self.pmustat(["-M", "Info_Thread_IPC", "--check", "Info_Thread_IPC>=2"], work)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("FAIL  Info_Thread_IPC>=2  (measured 1.5)", p.stderr)
        p = self.pmustat(["-M", "Info_Thread_IPC", "--check", "Info_Thread_IPC>=1.5"], work)
        self.assertEqual(p.returncode, 0, p.stderr)
        # A metric named only in a check is counted; an Info metric's short name works too.
        status, rec = self.record(["--check", "IPC >= 1.5", "--check", "max(ipc) < 2"], work)
        self.assertEqual(status, 0, rec["error"])
        self.assertEqual([m["name"] for m in rec["metrics"]], ["Info_Thread_IPC"])
        self.assertEqual([c["passed"] for c in rec["checks"]], [True, True])
        status, rec = self.record(["-M", "IPC", "--check", "IPC < 1.5"], work)
        self.assertEqual(status, 3)
        self.assertEqual(rec["failed"], ["IPC < 1.5"])

    def test_refusals(self):
        p = self.pmustat(["-M", "Info_System_DRAM_BW_Use"], [])
        self.assertEqual(p.returncode, 125)
        self.assertIn("Info_System_DRAM_BW_Use needs uncore events (UNC_ARB_TRK_REQUESTS.ALL, "
                      "UNC_ARB_COH_TRK_REQUESTS.ALL), which pmustat does not program", p.stderr)
        p = self.pmustat(["-M", "Memory_Bound"], [])
        self.assertEqual(p.returncode, 125)
        self.assertIn("Memory_Bound needs 9 programmable counters in one run; this core has 4 free", p.stderr)
        p = self.pmustat(["-M", "Frontend_Bond"], [])
        self.assertEqual(p.returncode, 125)
        self.assertIn("did you mean Frontend_Bound?", p.stderr)
        # In a group, a metric that cannot be counted is a warning and a null with the reason.
        status, rec = self.record(["-M", "TmaL2"], L1)
        self.assertEqual(status, 0, rec["error"])
        m = self.metric(rec, "Memory_Bound")
        self.assertIsNone(m["value"])
        self.assertIsNone(m["run"])
        self.assertIn("needs 9 programmable counters in one run", m["reason"])
        p = self.pmustat(["-M", "TmaL2"], L1)
        self.assertIn("pmustat: warning: not counted: Memory_Bound needs 9", p.stderr)
        self.assertRegex(p.stderr, r"\n +- +Memory_Bound +\(no value: Memory_Bound needs 9")

    def test_division_by_zero_is_null_with_a_reason(self):
        status, rec = self.record(["-M", "Info_Thread_IPC"], [INST + ":100"])
        self.assertEqual(status, 0, rec["error"])
        m = self.metric(rec, "Info_Thread_IPC")
        self.assertIsNone(m["value"])
        self.assertIn("CPU_CLK_UNHALTED.THREAD", m["reason"])
        p = self.pmustat(["-M", "Info_Thread_IPC", "-x", ","], [INST + ":100"])
        line = [line for line in p.stderr.splitlines() if line.startswith("metric,")][0]
        self.assertTrue(line.startswith("metric,,,,Info_Thread_IPC,1,not_counted,"), line)
        self.assertNotIn("inf", line.lower().split(",")[2] + line.lower().split(",")[3])
        # A check on it fails: no value.
        p = self.pmustat(["-M", "IPC", "--check", "IPC>=0"], [INST + ":100"])
        self.assertEqual(p.returncode, 3)

    def test_baseline_compares_metrics(self):
        base = os.path.join(self.dir, "base.json")
        ipc2 = [INST + ":2000", CLK + ":1000"]
        status, rec = self.record(["-M", "IPC", "--save-baseline", base], ipc2)
        self.assertEqual(status, 0, rec["error"])
        with open(base) as f:
            self.assertEqual(self.metric(json.load(f), "Info_Thread_IPC")["value"], 2.0)
        # 2.5 against 2: +25 %, past the default 0 %: exit 3, named like an event.
        ipc25 = [INST + ":2000", CLK + ":800"]
        status, rec = self.record(["-M", "IPC", "--baseline", base], ipc25)
        self.assertEqual(status, 3)
        cmp = [c for c in rec["baseline"]["comparisons"] if c["requested"] == "Info_Thread_IPC"]
        self.assertEqual(cmp, [{"requested": "Info_Thread_IPC", "passed": False, "value": 2.5, "baseline": 2,
                                "change_percent": 25, "tolerance_percent": 0}])
        self.assertEqual(rec["failed"], ["baseline Info_Thread_IPC"])
        p = self.pmustat(["-M", "IPC", "--baseline", base], ipc25)
        self.assertIn("FAIL  baseline Info_Thread_IPC  (2.5 vs 2: +25.00%, tolerance +0%)", p.stderr)
        # A tolerance by the metric's name, and --tolerance-both for a drop.
        status, rec = self.record(["-M", "IPC", "--baseline", base, "--tolerance", "Info_Thread_IPC=25%"], ipc25)
        self.assertEqual(status, 0, rec["failed"])
        # 1800 / 1100: the counts move 10 %, IPC drops 18 %.
        lower = [INST + ":1800", CLK + ":1100"]
        status, rec = self.record(["-M", "IPC", "--baseline", base, "--tolerance", "10%"], lower)
        self.assertEqual(status, 0, rec["failed"])
        status, rec = self.record(["-M", "IPC", "--baseline", base, "--tolerance-both", "--tolerance", "15%"], lower)
        self.assertEqual((status, rec["failed"]), (3, ["baseline Info_Thread_IPC"]))
        # No value now (no cycles): fails, as an event not counted does.
        p = self.pmustat(["-M", "IPC", "--baseline", base, "-x", ","], [INST + ":100"])
        self.assertEqual(p.returncode, 3)
        self.assertIn("baseline,FAIL,,,,0.0000,Info_Thread_IPC", p.stderr)

    def test_repeat_statistics_of_metric_values(self):
        counter = os.path.join(self.dir, "counter")
        with open(counter, "w") as f:
            f.write("0\n")
        # Round k retires 1000 + 500 k instructions in 1000 cycles: IPC 1, 1.5, 2, 2.5.
        script = ('n=$(cat "$1"); echo $((n + 1)) > "$1"; '
                  'exec "$2" --quiet --retire %s:$((1000 + n * 500)) --retire %s:1000' % (INST, CLK))
        p = self.pmustat(["-M", "IPC", "-r", "4", "--json"], [],
                         command=["/bin/sh", "-c", script, "sh", counter, WORKLOAD])
        rec = json.loads(p.stderr)
        self.assertEqual(p.returncode, 0, rec["error"])
        m = self.metric(rec, "Info_Thread_IPC")
        self.assertEqual(m["value"], 1.75)
        self.assertEqual(m["stats"], {"n": 4, "mean": 1.75, "median": 1.75, "min": 1.0, "max": 2.5,
                                      "stddev": m["stats"]["stddev"]})
        self.assertTrue(math.isclose(m["stats"]["stddev"], math.sqrt(5 / 12), rel_tol=1e-12))

    def test_duration_is_the_runs_own(self):
        status, rec = self.record(["-M", "Info_Memory_L3_Cache_Fill_BW"], [LLC_MISS + ":5000000"])
        self.assertEqual(status, 0, rec["error"])
        m = self.metric(rec, "Info_Memory_L3_Cache_Fill_BW")
        ms = rec["elapsed_seconds"] * 1000.0
        counts = self.counts_of_run(rec, 1)
        self.assertEqual(m["value"], reference("Info_Memory_L3_Cache_Fill_BW", counts, True, ms))
        self.assertEqual(m["unit"], None)

    def test_tsc_metric_reads_the_tsc_over_the_run(self):
        # Skylake-SP's cpu_utilization is 100 x REF_TSC / TSC: the emulated TSC moves only
        # when the workload says (tsc:N), so over the run it is 12000 ticks, and 3000
        # reference cycles are 25 %.
        command = [WORKLOAD, "--quiet", "--retire", "0x3c:0x01:3000", "--act", "tsc:12000"]
        status, rec = self.record(["-M", "cpu_utilization"], [], model="skylakex", command=command)
        self.assertEqual(status, 0, rec["error"])
        m = self.metric(rec, "cpu_utilization")
        self.assertEqual(m["value"], 25.0, m["reason"])
        counts = self.counts_of_run(rec, m["run"])
        counts["TSC"] = 12000
        self.assertEqual(m["value"], reference("cpu_utilization", counts, True, table="skylakex"))
        # Each round has its own ticks: -r 2 with 12000 and then 6000 gives 25 % and 50 %.
        counter = os.path.join(self.dir, "counter")
        with open(counter, "w") as f:
            f.write("1\n")
        script = ('n=$(cat "$1"); echo $((n + 1)) > "$1"; '
                  'exec "$2" --quiet --retire 0x3c:0x01:3000 --act tsc:$((12000 / n))')
        p = self.pmustat(["-M", "cpu_utilization", "-r", "2", "--json"], [], model="skylakex",
                         command=["/bin/sh", "-c", script, "sh", counter, WORKLOAD])
        rec = json.loads(p.stderr)
        self.assertEqual(p.returncode, 0, rec["error"])
        m = self.metric(rec, "cpu_utilization")
        self.assertEqual((m["stats"]["min"], m["stats"]["max"]), (25.0, 50.0))
        # No ticks (the TSC did not move): no value, and the reason, never inf.
        status, rec = self.record(["-M", "cpu_utilization"], ["0x3c:0x01:3000"], model="skylakex")
        self.assertEqual(status, 0, rec["error"])
        self.assertIsNone(self.metric(rec, "cpu_utilization")["value"])

    def test_metric_values_per_interval(self):
        # Three steps 250 ms apart, each 3000 reference cycles, 2000 instructions in 1000
        # cycles and 12000 TSC ticks; -I 100: every interval's IPC is its own counts'
        # ratio, and cpu_utilization its reference cycles over its own ticks: 25 % however
        # many steps one interval holds (over the run so far it would fall: 12.5 %, ...).
        step = ["--retire", "0x3c:0x01:3000", "--retire", INST + ":2000", "--retire", CLK + ":1000",
                "--act", "tsc:12000"]
        command = [WORKLOAD, "--quiet"] + step + ["--steps", "3", "--step-ms", "250"]
        p = self.pmustat(["-M", "cpu_utilization,IPC", "-I", "100", "--json"], [], model="skylakex",
                         command=command)
        lines = [json.loads(line) for line in p.stderr.splitlines()]
        self.assertEqual(p.returncode, 0, lines[-1]["error"])
        intervals = [r for r in lines if r["type"] == "interval"]
        self.assertGreaterEqual(len(intervals), 3)
        whole = 0
        for r in intervals:
            if jsonschema is not None:
                jsonschema.validate(r, SCHEMA_DOC)
            counts = {e["requested"]: e["value"] for e in r["events"]}
            values = {m["name"]: m for m in r["metrics"]}
            self.assertEqual(sorted(values), ["Info_Thread_IPC", "cpu_utilization"])
            clk, ref = counts["CPU_CLK_UNHALTED.THREAD"], counts["CPU_CLK_UNHALTED.REF_TSC"]
            ipc = values["Info_Thread_IPC"]["value"]
            self.assertEqual(ipc, counts["INST_RETIRED.ANY"] / clk if clk else None, r)
            util = values["cpu_utilization"]["value"]
            if ref and util is not None:
                self.assertEqual(util, 25.0, r)
                whole += 1
        self.assertGreaterEqual(whole, 2, intervals)
        # The same in text and CSV.
        p = self.pmustat(["-M", "IPC", "-I", "100", "-x", ","], [], model="skylakex", command=command)
        rows = [line.split(",") for line in p.stderr.splitlines() if line.startswith("interval")]
        by_time = {}
        for f in rows:
            by_time.setdefault(f[1], []).append(f)
        for t, fs in by_time.items():
            # interval: type, time, round, run, cpu, value, unit, event
            inst = [int(f[5]) for f in fs if f[0] == "interval" and f[7] == "INST_RETIRED.ANY:u"]
            clk = [int(f[5]) for f in fs if f[0] == "interval" and f[7] == "CPU_CLK_UNHALTED.THREAD:u"]
            metric = [f for f in fs if f[0] == "interval-metric"]
            self.assertEqual(len(metric), 1, fs)
            self.assertEqual((metric[0][2], metric[0][3], metric[0][5], metric[0][6]),
                             ("1", "1", "", "Info_Thread_IPC"), fs)
            self.assertEqual(metric[0][7] == "counted", clk[0] > 0, fs)
            if clk[0]:
                self.assertEqual(float(metric[0][4]), inst[0] / clk[0], fs)
            else:
                self.assertEqual(metric[0][4], "")
        p = self.pmustat(["-M", "IPC", "-I", "100"], [], model="skylakex", command=command)
        self.assertRegex(p.stderr, r"\n +[0-9.]+ +2\.000 +Info_Thread_IPC\n")

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs two CPUs")
    def test_core_list_sums_and_per_cpu(self):
        # -C A,B: the command runs one workload on each core. A: IPC 2 (2000 / 1000),
        # 3000 reference cycles; B: IPC 0.5 (500 / 1000), 6000; the TSC moves 12000.
        # Summed: IPC 2500 / 2000 = 1.25, cpu_utilization 100 x 9000 / (2 x 12000) = 37.5 %;
        # per core (-A, JSON per_cpu): 2 and 0.5, 25 % and 50 %.
        a, b = sorted(os.sched_getaffinity(0))[-2:]
        script = ('"$1" --quiet --cpu %d --retire %s:2000 --retire %s:1000 --retire 0x3c:0x01:3000 --act tsc:12000 & '
                  '"$1" --quiet --cpu %d --retire %s:500 --retire %s:1000 --retire 0x3c:0x01:6000; wait'
                  % (a, INST, CLK, b, INST, CLK))
        command = ["/bin/sh", "-c", script, "sh", WORKLOAD]

        def run(args):
            argv = [RUN_UNDER_EMU, "--model", "skylakex", "--cpus", str(b + 1), "--",
                    PMUSTAT, "-C", "%d,%d" % (a, b), "-M", "IPC,cpu_utilization"] + args + ["--"] + command
            return subprocess.run(argv, cwd=self.dir, capture_output=True, text=True, timeout=60)

        p = run(["--json"])
        rec = json.loads(p.stderr)
        self.assertEqual(p.returncode, 0, rec["error"])
        if jsonschema is not None:
            jsonschema.validate(rec, SCHEMA_DOC)
        ipc, util = self.metric(rec, "Info_Thread_IPC"), self.metric(rec, "cpu_utilization")
        self.assertEqual((ipc["value"], util["value"]), (1.25, 37.5))
        self.assertEqual(ipc["per_cpu"], [{"cpu": a, "value": 2.0, "reason": None},
                                          {"cpu": b, "value": 0.5, "reason": None}])
        self.assertEqual([c["value"] for c in util["per_cpu"]], [25.0, 50.0])
        p = run(["-A"])
        self.assertEqual(p.returncode, 0, p.stderr)
        # Ratios with 3 decimals alike: 2.000 in line with 0.500.
        self.assertRegex(p.stderr, r"\nCPU%d +2\.000 +Info_Thread_IPC *\nCPU%d +0\.500 +Info_Thread_IPC *\n" % (a, b))
        self.assertRegex(p.stderr, r"\nCPU%d +25\.00 %% +cpu_utilization *\nCPU%d +50\.00 %% +cpu_utilization" % (a, b))
        p = run(["-A", "-x", ","])
        pad = "," * 9
        lines = [line for line in p.stderr.splitlines() if line.startswith("metric,CPU")]
        self.assertEqual(lines, ["metric,CPU%d,2,,Info_Thread_IPC,1,counted" % a + pad,
                                 "metric,CPU%d,0.5,,Info_Thread_IPC,1,counted" % b + pad,
                                 "metric,CPU%d,25,percent,cpu_utilization,1,counted" % a + pad,
                                 "metric,CPU%d,50,percent,cpu_utilization,1,counted" % b + pad])
        p = run(["-x", ","])
        lines = [line for line in p.stderr.splitlines() if line.startswith("metric,")]
        self.assertEqual(lines, ["metric,,1.25,,Info_Thread_IPC,1,counted" + pad,
                                 "metric,,37.5,percent,cpu_utilization,1,counted" + pad])

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs two CPUs")
    def test_icelake_top_down_on_two_cores_weights_by_slots(self):
        # Core A: 1000 slots, 90 % retiring (bytes 230, 25); core B: 10000
        # slots, 99 % back-end bound (bytes 3, 252). Together 1000 of 11000
        # slots retire: the summed bytes are the slot-weighted means (24 and
        # 231), not the bytes added (233 and 277, which gave 45.7 % retiring);
        # each core keeps its own bytes and metrics.
        a, b = sorted(os.sched_getaffinity(0))[-2:]
        script = ('"$1" --quiet --cpu %d --topdown 900:0:0:100 & '
                  '"$1" --quiet --cpu %d --topdown 100:0:0:9900; wait' % (a, b))
        argv = [RUN_UNDER_EMU, "--model", "icelake", "--cpus", str(b + 1), "--", PMUSTAT, "-C", "%d,%d" % (a, b),
                "-M", "Retiring,Backend_Bound", "--json", "--", "/bin/sh", "-c", script, "sh", WORKLOAD]
        p = subprocess.run(argv, cwd=self.dir, capture_output=True, text=True, timeout=60)
        rec = json.loads(p.stderr)
        self.assertEqual(p.returncode, 0, rec["error"])
        if jsonschema is not None:
            jsonschema.validate(rec, SCHEMA_DOC)
        events = {e["requested"]: e for e in rec["events"]}
        self.assertEqual(events["TOPDOWN.SLOTS"]["value"], 11000)
        self.assertEqual(events["PERF_METRICS.RETIRING"]["value"], 24)
        self.assertEqual(events["PERF_METRICS.BACKEND_BOUND"]["value"], 231)
        self.assertEqual([c["value"] for c in events["PERF_METRICS.RETIRING"]["per_cpu"]], [230, 3])
        self.assertEqual([c["value"] for c in events["PERF_METRICS.BACKEND_BOUND"]["per_cpu"]], [25, 252])
        retiring, backend = self.metric(rec, "Retiring"), self.metric(rec, "Backend_Bound")
        self.assertAlmostEqual(retiring["value"], 100 * 24 / 255, places=9)
        self.assertAlmostEqual(backend["value"], 100 * 231 / 255, places=9)
        self.assertAlmostEqual(retiring["per_cpu"][0]["value"], 100 * 230 / 255, places=9)
        self.assertAlmostEqual(retiring["per_cpu"][1]["value"], 100 * 3 / 255, places=9)

    def test_icelake_top_down_from_perf_metrics(self):
        # 1000 slots: 400 retiring, 100 bad speculation, 200 front-end, 300
        # back-end bound. IA32_PERF_METRICS holds each as x/255 of the slots,
        # rounded: 102, 26, 51, 76 (the emulator's rounding, as the CPU's).
        # The core starts with both registers holding another user's values:
        # pmustat clears them first (the SDM) and puts them back after.
        emu = ["--set", "%d:0x30c=100000" % CORE, "--set", "%d:0x329=0x40302010" % CORE]
        status, rec = self.record(["-M", "TmaL1"], [], model="icelake", emu=emu,
                                  command=[WORKLOAD, "--quiet", "--topdown", "400:100:200:300",
                                           "--retire", "0x0d:0x01:3", "--retire", "0xc0:0x00:900"])
        self.assertEqual(status, 0, rec["error"])
        self.assertEqual(rec["runs"], 1)
        events = {e["requested"]: (e["value"], e["counter"], e["run"]) for e in rec["events"]}
        self.assertEqual(events["TOPDOWN.SLOTS"], (1000, "fixed3", 1))
        self.assertEqual(events["PERF_METRICS.RETIRING"], (102, "metrics0", 1))
        self.assertEqual(events["PERF_METRICS.BAD_SPECULATION"], (26, "metrics1", 1))
        self.assertEqual(events["PERF_METRICS.FRONTEND_BOUND"], (51, "metrics2", 1))
        self.assertEqual(events["PERF_METRICS.BACKEND_BOUND"], (76, "metrics3", 1))
        # INT_MISC.CLEARS_COUNT is 0x0d/0x01 with cmask 1 and edge: the one
        # burst counts 1, and goes into Backend_Bound as 5 slots of 1000.
        self.assertEqual(events["INT_MISC.CLEARS_COUNT"][0], 1)
        self.assert_exact(rec, "Frontend_Bound", 20.0, table="icelake")
        self.assert_exact(rec, "Retiring", 40.0, table="icelake")
        self.assert_exact(rec, "Backend_Bound", 100 * (76 / 255 + 5 / 1000), table="icelake")
        self.assert_exact(rec, "Bad_Speculation",
                          100 * max(1 - (51 / 255 + 76 / 255 + 5 / 1000 + 102 / 255), 0), table="icelake")
        self.assert_exact(rec, "Info_Thread_SLOTS", 1000.0, table="icelake")
        # Needs both SMT threads' slots, which one thread's counting does not have.
        m = self.metric(rec, "Info_Thread_Slots_Utilization")
        self.assertIsNone(m["value"])
        self.assertIn("TOPDOWN.SLOTS:percore", m["reason"])
        # Read once after the run: no -I intervals of it.
        p = self.pmustat(["-M", "Retiring", "-I", "100"], [], model="icelake", command=[WORKLOAD, "--quiet"])
        self.assertEqual(p.returncode, 125)
        self.assertIn("Retiring needs IA32_PERF_METRICS, which pmustat reads once after the run, not every -I interval",
                      p.stderr)

    def test_killed_run_puts_perf_metrics_back_from_its_journal(self):
        # pmustat killed with SIGKILL while it counts top-down on Ice Lake:
        # `pmustat reset` puts FIXED_CTR3 and IA32_PERF_METRICS back from the
        # crash journal, as found (another user's values), counter first.
        state, before, after = (os.path.join(self.dir, n) for n in ("state", "before", "after"))
        script = ('"$1" -C %d -M TmaL1 -- "$2" --quiet --topdown 400:100:200:300 --sleep 3000 & p=$!; '
                  'sleep 1; kill -9 $p; wait $p; exit 0') % CORE
        p = subprocess.run([RUN_UNDER_EMU, "--state", state, "--model", "icelake", "--cpus", str(CORE + 1),
                            "--set", "%d:0x30c=100000" % CORE, "--set", "%d:0x329=0x40302010" % CORE,
                            "--save-before", before, "--", "/bin/sh", "-c", script, "sh", PMUSTAT, WORKLOAD],
                           cwd=self.dir, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        d = subprocess.run([PMU_EMU, "diff", before, state], capture_output=True, text=True)
        self.assertIn("IA32_PERF_METRICS", d.stdout, "the killed run left nothing to put back?")
        p = subprocess.run([RUN_UNDER_EMU, "--state", state, "--save-after", after, "--",
                            PMUSTAT, "reset", "-C", str(CORE)], cwd=self.dir, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("was killed while counting; restored", p.stderr)
        d = subprocess.run([PMU_EMU, "diff", before, after], capture_output=True, text=True)
        self.assertEqual(d.returncode, 0, "not restored:\n" + d.stdout + d.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
