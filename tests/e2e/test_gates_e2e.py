#!/usr/bin/env python3
"""CI gates end to end: the real pmustat under the emulated PMU
(run-under-emu), counting emu-workload, which retires exact numbers of
events. -r statistics, --check, baselines, -I sums, exit statuses, which
stream gets what, golden outputs for the table, CSV and JSON, and every JSON
record validated against man/pmustat-output.schema.json. After each run the
emulated MSRs must be as they were (pmu-emu diff).

    test_gates_e2e.py PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD PMU_EMU SCHEMA GOLDEN_DIR

PMUSTAT_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

PMUSTAT, RUN_UNDER_EMU, WORKLOAD, PMU_EMU, SCHEMA, GOLDEN = map(os.path.abspath, sys.argv[1:7])
del sys.argv[1:7]

try:
    import jsonschema
except ImportError:  # the schema test skips; the others run
    jsonschema = None

# The core the tests count on: the last one we may run on (as tests/e2e does).
CORE = max(os.sched_getaffinity(0))
OTHER_CPUS = len(os.sched_getaffinity(0) - {CORE}) > 0

INST = "0xc0:0x00"
BRANCHES = "0xc4:0x00"
MISSES = "0xc5:0x00"
LLC_MISS = "0x2e:0x41"

with open(SCHEMA) as f:
    SCHEMA_DOC = json.load(f)
validated = []


def validate(record):
    """Check one JSON record against the schema (when jsonschema is here)."""
    if jsonschema is None:
        return
    jsonschema.validate(record, SCHEMA_DOC)
    validated.append(record.get("type"))


class Run:
    def __init__(self, status, out, err, restored):
        self.status, self.out, self.err, self.restored = status, out, err, restored

    def json(self):
        return json.loads(self.err)


class EmuRuns(unittest.TestCase):
    """pmustat runs on a fresh emulated machine, each in a temporary directory."""
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pmustat-gates-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def pmustat(self, args, command, model="skylake", check_restored=True):
        """pmustat -C CORE ARGS -- COMMAND on a fresh emulated machine."""
        before, after = self.path("before"), self.path("after")
        argv = [RUN_UNDER_EMU, "--model", model, "--cpus", str(CORE + 1),
                "--save-before", before, "--save-after", after, "--",
                PMUSTAT, "-C", str(CORE)] + args + ["--"] + command
        p = subprocess.run(argv, cwd=self.dir, capture_output=True, text=True, timeout=60)
        restored = None
        if os.path.exists(after):
            d = subprocess.run([PMU_EMU, "diff", before, after], capture_output=True, text=True)
            restored = d.returncode == 0
            if check_restored:
                self.assertEqual(d.returncode, 0, "MSRs not restored:\n" + d.stdout + d.stderr)
            os.unlink(before)
            os.unlink(after)
        return Run(p.returncode, p.stdout, p.stderr, restored)

    def workload(self, *retires, extra=()):
        argv = [WORKLOAD, "--quiet"]
        for r in retires:
            argv += ["--retire", r]
        return argv + list(extra)

    def stepping_workload(self, base, step):
        """A command whose k-th run (k = 0, 1, ...) retires base + k * step instructions."""
        counter = self.path("counter")
        with open(counter, "w") as f:
            f.write("0\n")
        script = ('n=$(cat "$1"); echo $((n + 1)) > "$1"; '
                  'exec "$2" --quiet --retire %s:$((%d + n * %d)) --retire %s:500' % (INST, base, step, BRANCHES))
        return ["/bin/sh", "-c", script, "sh", counter, WORKLOAD]


class GatesE2E(EmuRuns):
    # --regions (REGION_DEMO in the environment: tests/region's region-demo)

    @unittest.skipIf(not os.environ.get("REGION_DEMO"), "REGION_DEMO is not set")
    def test_regions_record_validates_and_gates(self):
        run = self.pmustat(["--regions", "-r", "2", "-e", "LLC_MISSES", "--json",
                            "--check", "hot:LLC_MISSES<=1200", "--check", "hot:LLC_MISSES<1200"],
                           [os.environ["REGION_DEMO"]])
        self.assertEqual(run.status, 3, run.err)
        rec = run.json()
        validate(rec)
        hot = [g for g in rec["regions"] if g["name"] == "hot"][0]
        self.assertEqual((hot["calls"], hot["events"][0]["value"], hot["events"][0]["values"]), (3, 1200, [1200, 1200]))
        self.assertEqual(rec["failed"], ["hot:LLC_MISSES<1200"])
        # Without --regions there is no "regions" key, and the schema still holds.
        run = self.pmustat(["-e", "LLC_MISSES", "--json"], [os.environ["REGION_DEMO"]])
        self.assertEqual(run.status, 0, run.err)
        self.assertNotIn("regions", run.json())
        validate(run.json())

    # -r N

    def test_repeat_statistics_exact(self):
        r = self.pmustat(["-r", "3", "--json", "-e", "INST_RETIRED.ANY,BR_INST_RETIRED.ALL_BRANCHES"],
                         self.stepping_workload(1000, 100))
        self.assertEqual(r.status, 0, r.err)
        self.assertEqual(r.out, "")
        doc = r.json()
        validate(doc)
        self.assertEqual(doc["repeat"], 3)
        inst, br = doc["events"]
        self.assertEqual(inst["values"], [1000, 1100, 1200])
        self.assertEqual(inst["value"], 1100)
        st = inst["stats"]
        self.assertEqual((st["runs"], st["median"], st["mean"], st["min"], st["max"]), (3, 1100, 1100, 1000, 1200))
        self.assertAlmostEqual(st["stddev"], 100.0)
        self.assertAlmostEqual(st["rel_stddev_percent"], 100.0 * 100 / 1100)
        self.assertEqual(br["values"], [500, 500, 500])
        self.assertEqual(br["stats"]["stddev"], 0)

    def test_repeat_rounds_of_batches(self):
        # Six GP events on four counters: two runs per round, three rounds.
        evs = ["BR_INST_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED.ALL_BRANCHES", "LONGEST_LAT_CACHE.MISS",
               "LONGEST_LAT_CACHE.REFERENCE", "UOPS_ISSUED.ANY", "MEM_INST_RETIRED.ALL_LOADS"]
        r = self.pmustat(["-r", "3", "--json", "-e", ",".join(evs)],
                         self.workload(BRANCHES + ":11", MISSES + ":3", LLC_MISS + ":7"))
        self.assertEqual(r.status, 0, r.err)
        doc = r.json()
        validate(doc)
        self.assertEqual(doc["runs"], 2)
        vals = {e["requested"]: e["values"] for e in doc["events"]}
        self.assertEqual(vals["BR_INST_RETIRED.ALL_BRANCHES"], [11, 11, 11])
        self.assertEqual(vals["BR_MISP_RETIRED.ALL_BRANCHES"], [3, 3, 3])
        self.assertEqual(vals["LONGEST_LAT_CACHE.MISS"], [7, 7, 7])
        self.assertEqual(vals["UOPS_ISSUED.ANY"], [0, 0, 0])

    def test_stop_at_first_failing_run_unless_keep_going(self):
        cmd = self.workload(INST + ":10", extra=["--exit", "4"])
        r = self.pmustat(["-r", "5", "--json", "-e", "INST_RETIRED.ANY"], cmd)
        self.assertEqual(r.status, 4)
        doc = r.json()    # the note about stopping stays out of the JSON stream
        validate(doc)
        self.assertEqual(doc["events"][0]["values"], [10])
        r = self.pmustat(["-r", "5", "-e", "INST_RETIRED.ANY"], cmd)
        self.assertEqual(r.status, 4)
        self.assertIn("pmustat: run 1 of 5 of %s exited 4; stopping (--keep-going goes on)\n" % WORKLOAD, r.err)
        self.assertIn("(1 of 5 runs: stopped at a failing run):", r.err)
        # perf's -r layout: one line per event, the mean, no spread from one run.
        self.assertIn("\n                10      INST_RETIRED.ANY:u\n", r.err)
        self.assertNotIn("( +-", r.err)
        r = self.pmustat(["-r", "5", "--keep-going", "--json", "-e", "INST_RETIRED.ANY"], cmd)
        self.assertEqual(r.status, 4)
        doc = r.json()
        self.assertEqual(doc["events"][0]["values"], [10] * 5)
        self.assertEqual(doc["exit_status"], 4)

    # --check

    def test_checks_pass_fail_and_exit_status(self):
        cmd = self.workload(INST + ":1000", BRANCHES + ":500", MISSES + ":5")
        ok = ["INST_RETIRED.ANY<=1k", "INST_RETIRED.ANY == 1e3",
              "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.02"]
        args = ["-e", "INST_RETIRED.ANY"]
        for c in ok:
            args += ["--check", c]
        r = self.pmustat(args, cmd)
        self.assertEqual(r.status, 0, r.err)
        for c in ok:
            self.assertIn("PASS  %s  (measured " % c, r.err)
        self.assertIn("(measured 0.01)", r.err)
        # Events named only in checks are counted, and shown.
        self.assertRegex(r.err, r"\n +500 +BR_INST_RETIRED.ALL_BRANCHES")
        r = self.pmustat(args + ["--check", "INST_RETIRED.ANY < 1000"], cmd)
        self.assertEqual(r.status, 3, r.err)
        self.assertIn("FAIL  INST_RETIRED.ANY < 1000  (measured 1000)", r.err)
        # The command's own failure wins over a failed gate.
        r = self.pmustat(args + ["--check", "INST_RETIRED.ANY < 1000"],
                         self.workload(INST + ":1000", extra=["--exit", "7"]))
        self.assertEqual(r.status, 7, r.err)

    def test_checks_in_json_say_which_failed(self):
        r = self.pmustat(["-r", "3", "--json", "-e", "INST_RETIRED.ANY",
                          "--check", "max(INST_RETIRED.ANY) <= 1150", "--check", "median(INST_RETIRED.ANY) <= 1100",
                          "--check", "mean(INST_RETIRED.ANY) < 1100", "--check", "min(INST_RETIRED.ANY) >= 1000",
                          "--check", "NOPE.EVENT_DOES_NOT_EXIST_IN_SKL <= 1"],
                         self.stepping_workload(1000, 100), check_restored=False)
        # An unknown event in a check is an event error: 125 before any MSR is written.
        self.assertEqual(r.status, 125)
        self.assertIn("--check 'NOPE.EVENT_DOES_NOT_EXIST_IN_SKL <= 1'", r.err)
        r = self.pmustat(["-r", "3", "--json", "-e", "INST_RETIRED.ANY",
                          "--check", "max(INST_RETIRED.ANY) <= 1150", "--check", "median(INST_RETIRED.ANY) <= 1100",
                          "--check", "mean(INST_RETIRED.ANY) < 1100", "--check", "min(INST_RETIRED.ANY) >= 1000",
                          "--check", "INST_RETIRED.ANY / BR_MISP_RETIRED.ALL_BRANCHES > 1"],
                         self.stepping_workload(1000, 100))
        self.assertEqual(r.status, 3)
        doc = r.json()    # stderr is the JSON and nothing else
        validate(doc)
        self.assertTrue(doc["gate_failed"])
        self.assertEqual(doc["exit_status"], 3)
        self.assertEqual(doc["failed"], ["max(INST_RETIRED.ANY) <= 1150", "mean(INST_RETIRED.ANY) < 1100",
                                         "INST_RETIRED.ANY / BR_MISP_RETIRED.ALL_BRANCHES > 1"])
        checks = doc["checks"]
        self.assertEqual([c["passed"] for c in checks], [False, True, False, True, False])
        self.assertEqual([c["value"] for c in checks[:4]], [1200, 1100, 1100, 1000])
        self.assertEqual(checks[4]["value"], None)
        self.assertEqual(checks[4]["error"], "division by zero")

    def test_bad_check_exits_125_with_a_caret_and_touches_nothing(self):
        for expr, col in (("INST_RETIRED.ANY <= 5x", 21), ("INST_RETIRED.ANY = 5", 17),
                          ("((((((((((((((((((((1)))))))))))))))))))) < 2", 16), ("<= 5", 0)):
            r = self.pmustat(["--check", expr], self.workload(INST + ":1"))
            self.assertEqual(r.status, 125, expr)
            lines = r.err.splitlines()
            self.assertTrue(lines[0].startswith("pmustat: --check: "), r.err)
            self.assertEqual(lines[1], "  " + expr)
            self.assertEqual(lines[2], "  " + " " * col + "^", r.err)
            self.assertEqual(r.out, "")

    # --save-baseline / --baseline

    def save_baseline(self, name, *retires):
        r = self.pmustat(["-r", "3", "-x", ",", "-e", "INST_RETIRED.ANY,LONGEST_LAT_CACHE.MISS",
                          "--save-baseline", name], self.workload(*retires))
        self.assertEqual(r.status, 0, r.err)
        with open(self.path(name)) as f:
            doc = json.load(f)
        validate(doc)
        return doc

    def test_baseline_tolerances(self):
        doc = self.save_baseline("main.json", INST + ":1000", LLC_MISS + ":100")
        self.assertEqual(doc["cpu_model"].split("-")[:3], ["GenuineIntel", "6", "5E"])
        self.assertEqual(doc["event_table"], "skylake")
        evs = ["-e", "INST_RETIRED.ANY,LONGEST_LAT_CACHE.MISS", "--baseline", "main.json"]
        # +2% at 2%: passes; +2.1% fails.
        r = self.pmustat(evs + ["--tolerance", "2%"], self.workload(INST + ":1020", LLC_MISS + ":100"))
        self.assertEqual(r.status, 0, r.err)
        self.assertIn("PASS  baseline INST_RETIRED.ANY  (1020 vs 1000: +2.00%, tolerance +2%)", r.err)
        r = self.pmustat(evs + ["--tolerance", "2%", "--json"], self.workload(INST + ":1021", LLC_MISS + ":100"))
        self.assertEqual(r.status, 3, r.err)
        doc = r.json()
        validate(doc)
        self.assertEqual(doc["failed"], ["baseline INST_RETIRED.ANY"])
        cmp = doc["baseline"]["comparisons"]
        self.assertEqual((cmp[0]["value"], cmp[0]["baseline"], cmp[0]["passed"]), (1021, 1000, False))
        self.assertAlmostEqual(cmp[0]["change_percent"], 2.1)
        # Default tolerance 0%; a shrink passes unless --tolerance-both.
        r = self.pmustat(evs, self.workload(INST + ":900", LLC_MISS + ":100"))
        self.assertEqual(r.status, 0, r.err)
        r = self.pmustat(evs + ["--tolerance-both", "--tolerance", "5%"],
                         self.workload(INST + ":900", LLC_MISS + ":100"))
        self.assertEqual(r.status, 3, r.err)
        self.assertIn("FAIL  baseline INST_RETIRED.ANY  (900 vs 1000: -10.00%, tolerance +-5%)", r.err)
        # Per event: LLC may grow 30%, the rest 1%.
        r = self.pmustat(evs + ["--tolerance", "1%", "--tolerance", "LONGEST_LAT_CACHE.MISS=30%"],
                         self.workload(INST + ":1010", LLC_MISS + ":130"))
        self.assertEqual(r.status, 0, r.err)
        r = self.pmustat(evs + ["--tolerance", "1%", "--tolerance", "LONGEST_LAT_CACHE.MISS=30%", "-x", ";"],
                         self.workload(INST + ":1010", LLC_MISS + ":131"))
        self.assertEqual(r.status, 3, r.err)
        self.assertIn("baseline;FAIL;131;100;31.0000;30.0000;LONGEST_LAT_CACHE.MISS\n", r.err)
        self.assertIn("baseline;PASS;1010;1000;1.0000;1.0000;INST_RETIRED.ANY\n", r.err)

    def test_baseline_of_another_cpu_is_refused(self):
        self.save_baseline("skl.json", INST + ":1000", LLC_MISS + ":100")
        r = self.pmustat(["-e", "INST_RETIRED.ANY", "--baseline", "skl.json"], self.workload(INST + ":1000"),
                         model="icelake")
        self.assertEqual(r.status, 125)
        self.assertIn("baseline skl.json was recorded on GenuineIntel-6-5E", r.err)
        self.assertIn("--allow-cpu-mismatch", r.err)
        r = self.pmustat(["-e", "INST_RETIRED.ANY", "--baseline", "skl.json", "--allow-cpu-mismatch"],
                         self.workload(INST + ":1000"), model="icelake")
        self.assertEqual(r.status, 0, r.err)
        self.assertIn("PASS  baseline INST_RETIRED.ANY  (1000 vs 1000: +0.00%", r.err)

    def test_bad_baselines_exit_125_naming_file_and_field(self):
        good = self.save_baseline("good.json", INST + ":1000", LLC_MISS + ":100")
        cases = {
            "notjson.json": ("{", "baseline notjson.json: not JSON"),
            "version.json": (dict(good, format_version=7), "baseline version.json: format_version: 7"),
            "value.json": (dict(good, events=[dict(good["events"][0], value="1000")]),
                           "baseline value.json: events[0].value: not a count"),
            "failed.json": (dict(good, exit_status=3), "baseline failed.json: exit_status: 3"),
        }
        for name, (content, msg) in cases.items():
            with open(self.path(name), "w") as f:
                f.write(content if isinstance(content, str) else json.dumps(content))
            r = self.pmustat(["-e", "INST_RETIRED.ANY", "--baseline", name], self.workload(INST + ":1"))
            self.assertEqual(r.status, 125, name)
            self.assertIn(msg, r.err)
        with open(self.path("huge.json"), "w") as f:
            f.truncate(16 * 1024 * 1024 + 1)
        r = self.pmustat(["-e", "INST_RETIRED.ANY", "--baseline", "huge.json"], self.workload(INST + ":1"))
        self.assertEqual(r.status, 125)
        self.assertIn("baseline huge.json: 16777217 bytes; a baseline is at most 16 MiB", r.err)
        r = self.pmustat(["--tolerance", "2%"], self.workload(INST + ":1"))
        self.assertEqual(r.status, 125)
        self.assertIn("need --baseline", r.err)

    def test_no_baseline_saved_from_a_failing_run(self):
        r = self.pmustat(["-e", "INST_RETIRED.ANY", "--save-baseline", "b.json"],
                         self.workload(INST + ":1", extra=["--exit", "1"]))
        self.assertEqual(r.status, 1)
        self.assertIn("--save-baseline b.json: not written", r.err)
        self.assertFalse(os.path.exists(self.path("b.json")))

    # Streams

    def test_streams(self):
        cmd = [WORKLOAD, "--retire", INST + ":1000"]    # prints "cpu N" on stdout
        fail = ["--check", "INST_RETIRED.ANY < 10"]
        # --json on stderr: stderr is exactly one JSON document; stdout is the command's.
        r = self.pmustat(["--json", "-e", "INST_RETIRED.ANY"] + fail, cmd)
        self.assertEqual(r.status, 3)
        self.assertEqual(r.out, "cpu %d\n" % CORE)
        validate(r.json())
        self.assertNotIn("FAIL  ", r.err)
        # --json to a file: the file is the JSON; the PASS/FAIL lines go to stderr.
        r = self.pmustat(["--json", "-o", "out.json", "-e", "INST_RETIRED.ANY"] + fail, cmd)
        self.assertEqual(r.status, 3)
        self.assertEqual(r.out, "cpu %d\n" % CORE)
        self.assertEqual(r.err, "FAIL  INST_RETIRED.ANY < 10  (measured 1000)\n")
        with open(self.path("out.json")) as f:
            doc = json.load(f)
        validate(doc)
        # CSV on stderr: every line is an event, check or baseline record.
        r = self.pmustat(["-x", ",", "-e", "INST_RETIRED.ANY"] + fail, cmd)
        self.assertEqual(r.status, 3)
        self.assertEqual(r.err, "count,,1000,,INST_RETIRED.ANY:u,INST_RETIRED.ANY,fixed0,1,counted,,,,,,,,\n"
                                "check,FAIL,1000,10,INST_RETIRED.ANY < 10\n")

    # -I

    @unittest.skipUnless(OTHER_CPUS, "-I needs a second CPU")
    def test_interval_deltas_sum_to_the_total(self):
        steps = self.workload(INST + ":1000", BRANCHES + ":10", extra=["--steps", "5", "--step-ms", "60"])
        r = self.pmustat(["-I", "20", "--json", "-o", "iv.json", "-e", "INST_RETIRED.ANY,BR_INST_RETIRED.ALL_BRANCHES"],
                         steps)
        self.assertEqual(r.status, 0, r.err)
        with open(self.path("iv.json")) as f:
            records = [json.loads(line) for line in f]
        for rec in records:
            validate(rec)
        intervals, final = records[:-1], records[-1]
        self.assertEqual(final["type"], "stat")
        self.assertTrue(all(rec["type"] == "interval" for rec in intervals))
        self.assertGreaterEqual(len(intervals), 5)
        inst = [rec["events"][0]["value"] for rec in intervals]
        br = [rec["events"][1]["value"] for rec in intervals]
        self.assertEqual(sum(inst), 5000)
        self.assertEqual(sum(br), 50)
        self.assertEqual(final["events"][0]["value"], 5000)
        # Retires are atomic: each interval saw whole steps, and not all in one.
        self.assertTrue(all(v % 1000 == 0 for v in inst), inst)
        self.assertGreaterEqual(sum(1 for v in inst if v), 2, inst)
        times = [rec["time"] for rec in intervals]
        self.assertEqual(times, sorted(times))
        # CSV, with -r 2: per round.
        r = self.pmustat(["-I", "25", "-r", "2", "-x", ",", "-e", "INST_RETIRED.ANY"],
                         self.workload(INST + ":100", extra=["--steps", "3", "--step-ms", "40"]))
        self.assertEqual(r.status, 0, r.err)
        rows = [line.split(",") for line in r.err.splitlines() if line.startswith("interval,")]
        for rnd in ("1", "2"):
            self.assertEqual(sum(int(x[5]) for x in rows if x[2] == rnd), 300)
        self.assertIn("count,,300,,INST_RETIRED.ANY:u,INST_RETIRED.ANY,fixed0,1,counted,,2,300,300,300,300,0,0\n", r.err)
        # Human: a header, then one line per event and interval, before the table.
        r = self.pmustat(["-I", "25", "-e", "INST_RETIRED.ANY"],
                         self.workload(INST + ":1000", extra=["--steps", "2", "--step-ms", "60"]))
        self.assertEqual(r.status, 0, r.err)
        lines = r.err.splitlines()
        self.assertEqual(lines[0], "#         time             counts      event")
        counts = [int(re.match(r" +[0-9.]+ +([0-9,]+) +INST_RETIRED.ANY:u$", line).group(1).replace(",", ""))
                  for line in lines[1:lines.index("")]]
        self.assertEqual(sum(counts), 2000)

    @unittest.skipUnless(OTHER_CPUS, "-I needs a second CPU")
    def test_list_of_cores_records(self):
        """-C LIST: the final and interval records carry cores and per_cpu, valid against the schema."""
        steps = self.workload(INST + ":1000", extra=["--steps", "3", "--step-ms", "60"])
        r = self.pmustat(["-C", "%d-%d" % (CORE, CORE), "-I", "20", "--json", "-o", "iv.json",
                          "-e", "INST_RETIRED.ANY,task-clock"], steps)
        self.assertEqual(r.status, 0, r.err)
        with open(self.path("iv.json")) as f:
            records = [json.loads(line) for line in f]
        for rec in records:
            validate(rec)
        final = records[-1]
        self.assertEqual(final["cores"], [CORE])
        inst = [e for e in final["events"] if e["requested"] == "INST_RETIRED.ANY"][0]
        self.assertEqual(inst["per_cpu"], [{"cpu": CORE, "value": 3000, "counter": "fixed0"}])
        clock = [e for e in final["events"] if e["requested"] == "task-clock"][0]
        self.assertIsNone(clock["per_cpu"])
        self.assertEqual(sum(e["per_cpu"][0]["value"] for rec in records[:-1] for e in rec["events"]
                             if e["requested"] == "INST_RETIRED.ANY"), 3000)

    def test_interval_per_batch(self):
        # Six GP events on four counters: each run of the command has its own intervals.
        evs = ["BR_INST_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED.ALL_BRANCHES", "LONGEST_LAT_CACHE.MISS",
               "LONGEST_LAT_CACHE.REFERENCE", "UOPS_ISSUED.ANY", "MEM_INST_RETIRED.ALL_LOADS"]
        r = self.pmustat(["-I", "20", "--json", "-o", "iv.json", "-e", ",".join(evs)],
                         self.workload(BRANCHES + ":100", MISSES + ":10", LLC_MISS + ":1",
                                       extra=["--steps", "3", "--step-ms", "40"]))
        self.assertEqual(r.status, 0, r.err)
        with open(self.path("iv.json")) as f:
            records = [json.loads(line) for line in f]
        for rec in records:
            validate(rec)
        final = records[-1]
        self.assertEqual(final["runs"], 2)
        sums = {}
        for rec in records[:-1]:
            for e in rec["events"]:
                key = (rec["run"], e["requested"])
                sums[key] = sums.get(key, 0) + e["value"]
        for e in final["events"]:
            self.assertEqual(sums[(e["run"], e["requested"])], e["value"], e["requested"])
        self.assertEqual(sorted({run for run, _ in sums}), [1, 2])
        self.assertEqual(sums[(1, "BR_INST_RETIRED.ALL_BRANCHES")], 300)

    def test_interval_usage(self):
        for bad in ("5", "0", "x", "10ms"):
            r = self.pmustat(["-I", bad], self.workload(INST + ":1"))
            self.assertEqual(r.status, 125, bad)
            self.assertIn("-I %s: want milliseconds, at least 10" % bad, r.err)
        for bad in ("0", "-1", "1x"):
            r = self.pmustat(["-r", bad], self.workload(INST + ":1"))
            self.assertEqual(r.status, 125, bad)

    # Golden outputs

    def golden(self, name, text):
        path = os.path.join(GOLDEN, name)
        if os.environ.get("PMUSTAT_UPDATE_GOLDEN"):
            with open(path, "w") as f:
                f.write(text)
            return
        with open(path) as f:
            self.assertEqual(text, f.read(), "output differs from %s (PMUSTAT_UPDATE_GOLDEN=1 rewrites it)" % path)

    def normalize(self, text):
        text = text.replace(WORKLOAD, "emu-workload").replace(self.dir, "DIR")
        text = re.sub(r"\b\d+\.\d{9} seconds time elapsed", "X.XXXXXXXXX seconds time elapsed", text)
        text = re.sub(r'"elapsed_seconds": [0-9.e-]+', '"elapsed_seconds": 0.0', text)
        # -r: perf's mean +- error of a round's wall time, and the JSON's.
        # (its digits follow the error's size, and the padding with them: the whole line goes)
        text = re.sub(r"\n +\d+\.\d+ \+- \d+\.\d+ seconds time elapsed  \( \+- *\d+\.\d+% \)",
                      "\n X.XXX +- X.XXX seconds time elapsed  ( +- X.XX% )", text)
        text = re.sub(r'"(mean|stderr|median)_seconds": [0-9.e-]+', r'"\1_seconds": 0.0', text)
        text = re.sub(r"\b\d+\.\d{9} seconds (user|sys)", r"X.XXXXXXXXX seconds \1", text)
        text = re.sub(r'"(user|sys)_seconds": [0-9.e-]+', r'"\1_seconds": 0.0', text)
        text = re.sub(r"core %d\b" % CORE, "core N", text)
        text = re.sub(r'"core": %d\b' % CORE, '"core": 0', text)
        return text

    def test_golden_outputs(self):
        self.save_baseline("main.json", INST + ":1000", LLC_MISS + ":100")
        for fmt, args in (("table", []), ("csv", ["-x", ","]), ("json", ["--json"])):
            r = self.pmustat(["-r", "3"] + args + [
                "-e", "INST_RETIRED.ANY,LONGEST_LAT_CACHE.MISS", "--baseline", "main.json",
                "--tolerance", "2%", "--check", "LONGEST_LAT_CACHE.MISS <= 100",
                "--check", "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES <= 2%"],
                self.stepping_workload(1000, 30))
            self.assertEqual(r.status, 3, r.err)
            self.golden("gate-failure." + fmt, self.normalize(r.err))
            if fmt == "json":
                validate(r.json())


class OutputContract(EmuRuns):
    """What a perf stat user and a script read: -r as perf prints it, CSV
    records with fixed columns, JSON format 2, -o -."""

    def test_repeat_prints_perf_mean_and_standard_error_on_one_line(self):
        # 1000, 1030, 1060: mean 1030, stddev 30, standard error 30/sqrt(3) = 17.32, 1.68 % of the mean.
        r = self.pmustat(["-r", "3", "-e", "INST_RETIRED.ANY"], self.stepping_workload(1000, 30))
        self.assertEqual(r.status, 0, r.err)
        self.assertRegex(r.err, r"\n             1,030      INST_RETIRED.ANY:u +\( \+-  1\.68% \)\n\n")
        self.assertNotIn("runs: median", r.err)
        self.assertEqual(r.err.count("INST_RETIRED.ANY:u"), 1)
        # Elapsed: a round's mean +- its standard error, perf's layout; no user/sys (perf: one run only).
        self.assertRegex(r.err, r"\n +\d+\.\d+ \+- \d+\.\d+ seconds time elapsed  \( \+- +\d+\.\d\d% \)\n")
        self.assertNotIn("seconds user", r.err)
        # The median and the rest stay in the JSON.
        r = self.pmustat(["-r", "3", "-e", "INST_RETIRED.ANY", "--json"], self.stepping_workload(1000, 30))
        doc = r.json()
        validate(doc)
        ev = doc["events"][0]
        self.assertEqual((ev["value"], ev["stats"]["median"], ev["stats"]["mean"]), (1030, 1030, 1030))
        self.assertAlmostEqual(ev["stats"]["rel_stderr_percent"], 100 * 30 / 3 ** 0.5 / 1030)
        self.assertAlmostEqual(ev["stats"]["rel_stddev_percent"], 100 * 30 / 1030)
        self.assertGreater(doc["elapsed_per_round"]["mean_seconds"], 0)

    def test_csv_records_have_fixed_columns_and_headers(self):
        self.save_run = self.pmustat(["--save-baseline", "b.json", "-e", "INST_RETIRED.ANY"],
                                     self.workload(INST + ":1000000"))
        # -r with large counts: plain numbers, never 1e+06.
        r = self.pmustat(["-x", ",", "--csv-header", "-r", "2", "-e", "INST_RETIRED.ANY,task-clock",
                          "--check", "INST_RETIRED.ANY > 1", "--baseline", "b.json"],
                         self.workload(INST + ":1000000"))
        self.assertEqual(r.status, 0, r.err)
        rows = list(csv.reader(io.StringIO(r.err)))
        headers = {}
        for row in rows:
            if row[0].startswith("#"):
                self.assertNotIn(row[0][1:], headers, "one header per record type")
                headers[row[0][1:]] = row
                continue
            self.assertIn(row[0], headers, "a record before its header: %r" % row)
            self.assertEqual(len(row), len(headers[row[0]]), row)
        self.assertEqual(sorted(headers), ["baseline", "check", "count"])
        self.assertEqual(headers["count"], ["#count", "cpu", "value", "unit", "event", "name", "counter", "run",
                                            "status", "reason", "runs", "mean", "median", "min", "max", "stddev",
                                            "stderr_percent"])
        self.assertEqual(headers["check"], ["#check", "result", "lhs", "rhs", "expression"])
        count = {row[4]: dict(zip(headers["count"][1:], row[1:])) for row in rows if row[0] == "count"}
        inst = count["INST_RETIRED.ANY:u"]
        self.assertEqual((inst["value"], inst["mean"], inst["median"], inst["runs"], inst["status"]),
                         ("1000000", "1000000", "1000000", "2", "counted"))
        # task-clock in msec, as perf prints it.
        self.assertEqual(count["task-clock"]["unit"], "msec")
        self.assertLess(float(count["task-clock"]["value"]), 1000)
        self.assertNotIn("e+", r.err)
        # -I: "interval" records with theirs.
        r = self.pmustat(["-x", ";", "--csv-header", "-I", "20", "-e", "INST_RETIRED.ANY"],
                         self.workload(INST + ":100", extra=["--steps", "2", "--step-ms", "40"]))
        rows = list(csv.reader(io.StringIO(r.err), delimiter=";"))
        self.assertEqual(rows[0], ["#interval", "time", "round", "run", "cpu", "value", "unit", "event"])
        self.assertTrue(all(len(row) == 8 for row in rows if row[0] == "interval"), rows)
        self.assertEqual(sum(int(row[5]) for row in rows if row[0] == "interval"), 200)

    def test_dash_output_is_stdout_and_json_loads(self):
        noisy = ["/bin/sh", "-c", 'echo "the command writes here" >&2; exec "$0" --quiet --retire %s:10' % INST,
                 WORKLOAD]
        r = self.pmustat(["--json", "-o", "-", "-e", "INST_RETIRED.ANY"], noisy)
        self.assertEqual(r.status, 0, r.err)
        # run-under-emu's "cpu N" line aside, standard output is the record: json.load reads it.
        doc = json.loads(r.out[r.out.index("{"):])
        validate(doc)
        self.assertEqual(doc["events"][0]["value"], 10)
        self.assertIn("the command writes here", r.err)
        self.assertFalse(os.path.exists(self.path("-")))

    def test_json_status_is_an_enum_with_its_words_beside_it(self):
        r = self.pmustat(["--json", "-e", "INST_RETIRED.ANY"], self.workload(INST + ":10"))
        ev = r.json()["events"][0]
        self.assertEqual((ev["status"], ev["status_text"]), ("counted", "counted"))
        self.assertEqual(r.json()["format_version"], 2)
        self.assertIn("core", r.json())
        self.assertNotIn("cores", r.json())

    def test_metric_columns_line_up(self):
        # Ice Lake: PERF_METRICS bytes are a share of slots, not counts; CPI's long unit keeps its column.
        r = self.pmustat(["-e", "instructions,cycles", "-M", "Info_Thread_CPI,Info_Thread_IPC,TopdownL1"],
                         self.workload("0xc0:0x00:5000", "0x3c:0x00:2500",
                                       extra=["--topdown", "100000:200000:300000:400000"]), model="icelake")
        self.assertEqual(r.status, 0, r.err)
        self.assertRegex(r.err, r"\n +29\.80 %      PERF_METRICS\.FRONTEND_BOUND:u +#  of slots \(IA32_PERF_METRICS byte 76/255\)\n")
        cpi = re.search(r"\n( +0\.500 per instruction  )Info_Thread_CPI\n", r.err)
        ipc = re.search(r"\n( +2\.000 +)Info_Thread_IPC\n", r.err)
        fe = re.search(r"\n( +29\.80 % +)Frontend_Bound", r.err)
        self.assertTrue(cpi and ipc and fe, r.err)
        self.assertEqual(len(cpi.group(1)), len(ipc.group(1)))
        self.assertEqual(len(cpi.group(1)), len(fe.group(1)))
        # Run tags after a "#" comment start in the column of those without one (7 events: 2 runs).
        r = self.pmustat(["-e", "BR_INST_RETIRED.ALL_BRANCHES,BR_MISP_RETIRED.ALL_BRANCHES,LLC_MISSES,"
                          "LONGEST_LAT_CACHE.REFERENCE,MEM_INST_RETIRED.ALL_LOADS,MEM_INST_RETIRED.ALL_STORES,"
                          "UOPS_ISSUED.ANY"], self.workload(BRANCHES + ":100", MISSES + ":5"))
        self.assertEqual(r.status, 0, r.err)
        self.assertIn("#    5.00% of all branches  (run 1, pmc1)", r.err)
        tags = [line.index("(run ") for line in r.err.splitlines() if ":u " in line]
        self.assertEqual(len(tags), 7, r.err)
        self.assertEqual(len(set(tags)), 1, r.err)


class HostileNames(unittest.TestCase):
    """The output contract holds whatever the names are: every CSV line has
    its fields (RFC 4180 quoting), every JSON record validates (text that is
    not UTF-8 shows U+FFFD)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pmustat-names-")

    def tearDown(self):
        self.tmp.cleanup()

    def run_bytes(self, args, command=(WORKLOAD, "--quiet", "--retire", LLC_MISS + ":7")):
        """pmustat -C CORE ARGS -- COMMAND: (status, stdout bytes, stderr bytes); MSRs restored."""
        before, after = (os.path.join(self.tmp.name, n) for n in ("before", "after"))
        argv = [RUN_UNDER_EMU, "--model", "skylake", "--cpus", str(CORE + 1),
                "--save-before", before, "--save-after", after, "--",
                PMUSTAT, "-C", str(CORE)] + list(args) + ["--"] + list(command)
        p = subprocess.run(argv, cwd=self.tmp.name, capture_output=True, timeout=60)
        d = subprocess.run([PMU_EMU, "diff", before, after], capture_output=True, text=True)
        self.assertEqual(d.returncode, 0, "MSRs not restored:\n" + d.stdout)
        return p.returncode, p.stdout, p.stderr

    def test_csv_fields_with_every_event_spelling(self):
        spellings = ["LLC_MISSES", "LONGEST_LAT_CACHE.MISS", "longest_lat_cache.miss:u", "cache-misses",
                     "r412e", "cpu/event=0x2e,umask=0x41/", "cpu/event=0x2e,umask=0x41/u",
                     "cpu/event=0x2e,umask=0x41,name=a;b.c::d/", 'cpu/event=0x2e,umask=0x41,name=say "hi"/',
                     "LLC_MISSES:cmask=1"]
        for sep in (",", ";", "::", "."):
            for spelling in spellings:
                for repeat in (["-r", "2"], []):
                    with self.subTest(sep=sep, spelling=spelling, repeat=repeat):
                        status, out, err = self.run_bytes(["-x", sep, "-e", spelling] + repeat)
                        self.assertEqual(status, 0, err)
                        text = err.decode()
                        # csv wants a one-character delimiter: map a longer one first, outside quotes only.
                        rows = list(csv.reader(io.StringIO(self.split(text, sep)), delimiter="\x1f"))
                        self.assertEqual(len(rows), 1, text)
                        # The "count" record's fixed columns, with or without -r.
                        self.assertEqual(len(rows[0]), 17, text)
                        self.assertEqual(rows[0][0], "count", text)
                        # perf's event field: the spelling, with the ring when it does not say it.
                        labelled = spelling if spelling.endswith(("/u", ":u")) else \
                            spelling + ("u" if spelling.endswith("/") else ":u")
                        self.assertEqual(rows[0][4], labelled, text)
                        self.assertEqual(rows[0][8], "counted", text)
                        if "cmask" not in spelling:
                            self.assertEqual(rows[0][2], "7", text)

    @staticmethod
    def split(text, sep):
        """@text with each @sep outside double quotes replaced by US (0x1f)."""
        out, quoted, i = [], False, 0
        while i < len(text):
            if text[i] == '"':
                quoted = not quoted
            if not quoted and text.startswith(sep, i):
                out.append("\x1f")
                i += len(sep)
                continue
            out.append(text[i])
            i += 1
        return "".join(out)

    def test_json_records_validate_with_invalid_utf8(self):
        bad = b"cpu/event=0x2e,umask=0x41,name=ab\xffcd/"
        status, out, err = self.run_bytes(["--json", "-e", bad],
                                          ("/bin/sh", "-c", 'exec "$1" --quiet --retire ' + LLC_MISS + ":7",
                                           b"arg-\xfe\xc3(", WORKLOAD))
        self.assertEqual(status, 0, err)
        doc = json.loads(err)
        validate(doc)
        ev = doc["events"][0]
        self.assertEqual(ev["name"], "ab\ufffdcd")
        self.assertEqual(ev["requested"], "cpu/event=0x2e,umask=0x41,name=ab\ufffdcd/")
        self.assertEqual(ev["value"], 7)
        self.assertEqual(doc["command"][3], "arg-\ufffd\ufffd(")
        # A refusal quoting the bad bytes: still one record, with its error.
        out_json = os.path.join(self.tmp.name, "out.json")
        status, out, err = self.run_bytes(["--json", "-o", out_json, "-e", b"NO_SUCH_\xff"])
        self.assertEqual(status, 125)
        self.assertIn(b"NO_SUCH_\xff", err)
        self.assertIn(b"U+FFFD", err)   # and says what it did to the record
        with open(out_json, "rb") as f:
            doc = json.loads(f.read())
        validate(doc)
        self.assertIn("NO_SUCH_\ufffd", doc["error"])
        # -I: every line a record.
        if OTHER_CPUS:
            status, out, err = self.run_bytes(["--json", "-I", "10", "-e", bad],
                                              (WORKLOAD, "--quiet", "--retire", LLC_MISS + ":7",
                                               "--sleep", "50"))
            self.assertEqual(status, 0, err)
            lines = err.decode().splitlines()
            self.assertGreater(len(lines), 1)
            for line in lines:
                rec = json.loads(line)
                validate(rec)
                if rec["type"] == "interval":
                    self.assertEqual(rec["events"][0]["requested"], "cpu/event=0x2e,umask=0x41,name=ab\ufffdcd/")


class SchemaItself(unittest.TestCase):
    @unittest.skipIf(jsonschema is None, "python3-jsonschema is not installed")
    def test_schema_is_valid_and_rejects_drift(self):
        jsonschema.Draft202012Validator.check_schema(SCHEMA_DOC)
        with open(os.path.join(GOLDEN, "gate-failure.json")) as f:
            doc = json.load(f)
        jsonschema.validate(doc, SCHEMA_DOC)
        for broken in (dict(doc, format_version=1), dict(doc, surprise=1),
                       dict(doc, events=[dict(doc["events"][0], value=-1)]),
                       {k: v for k, v in doc.items() if k != "failed"},
                       dict(doc, regions=[{"name": "hot", "calls": 1}])):
            with self.assertRaises(jsonschema.ValidationError):
                jsonschema.validate(broken, SCHEMA_DOC)


if __name__ == "__main__":
    unittest.main(verbosity=2)
