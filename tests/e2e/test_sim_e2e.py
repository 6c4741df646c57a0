#!/usr/bin/env python3
"""--backend sim end to end: the real pmustat running the real Valgrind on a
tiny workload. The counts are Valgrind's own for the same run (every event
against `valgrind --tool=cachegrind` run directly with the same options),
identical run after run; gates, baselines, -x, --json (against the schema),
exit statuses, streams, children and refusals as with the other backends.

    test_sim_e2e.py PMUSTAT SIM_WORKLOAD SCHEMA   (REGION_DEMO in the environment: --regions)

Skips (exit 77) where valgrind is not installed: apt-get install valgrind."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

PMUSTAT, WORKLOAD, SCHEMA = map(os.path.abspath, sys.argv[1:4])
REGION_DEMO = os.environ.get("REGION_DEMO")
del sys.argv[1:4]

VALGRIND = shutil.which("valgrind")
if VALGRIND is None:
    print("skipped: valgrind is not installed (apt-get install valgrind)")
    sys.exit(77)

try:
    import jsonschema
except ImportError:
    jsonschema = None

with open(SCHEMA) as f:
    SCHEMA_DOC = json.load(f)

COLUMNS = ["Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim"]
# Each name's simulated meaning: the Cachegrind columns it sums.
MEANING = {
    "instructions": ["Ir"],
    "branches": ["Bc", "Bi"],
    "branch-misses": ["Bcm", "Bim"],
    "cache-references": ["I1mr", "D1mr", "D1mw"],
    "cache-misses": ["ILmr", "DLmr", "DLmw"],
    "L1-dcache-loads": ["Dr"],
    "L1-dcache-load-misses": ["D1mr"],
    "L1-dcache-stores": ["Dw"],
    "L1-dcache-store-misses": ["D1mw"],
    "L1-icache-load-misses": ["I1mr"],
    "LLC-load-misses": ["DLmr"],
    "LLC-store-misses": ["DLmw"],
}
MEANING.update({c: [c] for c in COLUMNS})
ALL = ",".join(MEANING)


def pmustat(*args, stdin=None, env=None):
    return subprocess.run([PMUSTAT, *args], input=stdin, capture_output=True, env=env, timeout=120)


def counts_of(record):
    return {e["requested"]: e["value"] for e in record["events"]}


def valgrind_direct(workload_args, tunables, env=None):
    """Cachegrind run by hand with the options pmustat documents: every process's totals summed."""
    with tempfile.TemporaryDirectory(prefix="pmustat-sim-test-") as d:
        run_env = dict(env if env is not None else os.environ)
        run_env["GLIBC_TUNABLES"] = tunables
        subprocess.run([VALGRIND, "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
                        "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64", "--trace-children=yes",
                        "--cachegrind-out-file=%s/out.%%p" % d, "--log-file=%s/log.%%p" % d, "--",
                        WORKLOAD, *workload_args], env=run_env, capture_output=True, check=True, timeout=120)
        total = dict.fromkeys(COLUMNS, 0)
        files = [n for n in os.listdir(d) if n.startswith("out.")]
        for name in files:
            with open(os.path.join(d, name)) as f:
                text = f.read()
            cols = re.search(r"^events: (.*)$", text, re.M).group(1).split()
            vals = re.search(r"^summary: (.*)$", text, re.M).group(1).split()
            for c, v in zip(cols, vals):
                total[c] += int(v)
        return total, len(files)


def callgrind_regions(program, tunables, names):
    """Callgrind run by hand as pmustat documents it for --regions, the regions rebuilt here from its dumps:
    each thread's part costs go to the regions open in it before the part's mark, into their sums when their
    outermost pair ends. Returns ({region: {"calls", "threads", name: sum}}, whole-run totals)."""
    with tempfile.TemporaryDirectory(prefix="pmustat-sim-test-") as d:
        env = dict(os.environ, GLIBC_TUNABLES=tunables, PMUSTAT_REGION_SIM="1")
        subprocess.run([VALGRIND, "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
                        "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64", "--trace-children=yes",
                        "--separate-threads=yes", "--combine-dumps=yes", "--dump-instr=no", "--dump-line=no",
                        "--callgrind-out-file=%s/out.%%p" % d, "--log-file=%s/log.%%p" % d, "--", program],
                       env=env, capture_output=True, check=True, timeout=120)
        regions, total = {}, dict.fromkeys(COLUMNS, 0)
        for fname in os.listdir(d):
            if not fname.startswith("out."):
                continue
            with open(os.path.join(d, fname)) as f:
                text = f.read()
            cols = re.search(r"^events: (.*)$", text, re.M).group(1).split()
            threads = {}
            for part in text.split("\npart: ")[1:]:
                thread = int(re.search(r"^thread: (\d+)$", part, re.M).group(1))
                cost = dict(zip(cols, map(int, re.search(r"^summary: (.*)$", part, re.M).group(1).split())))
                for c in COLUMNS:
                    total[c] += cost.get(c, 0)
                t = threads.setdefault(thread, {"stack": [], "pending": {}, "id": None})
                for name in set(t["stack"]):
                    acc = t["pending"].setdefault(name, dict.fromkeys(COLUMNS, 0))
                    for c in COLUMNS:
                        acc[c] += cost.get(c, 0)
                m = re.search(r"^desc: Trigger: Client Request: pmustat-region (.) (.*)$", part, re.M)
                if not m:
                    continue
                kind, arg = m.groups()
                if kind == "n":
                    t.update(stack=[], pending={}, id=(fname, thread, arg))
                elif kind == "b":
                    t["stack"].append(arg)
                elif kind == "e" and t["stack"] and t["stack"][-1] == arg:
                    t["stack"].pop()
                    reg = regions.setdefault(arg, {"calls": 0, "threads": set(), **{n: 0 for n in names}})
                    reg["calls"] += 1
                    reg["threads"].add(t["id"])
                    if arg not in t["stack"]:
                        done = t["pending"].pop(arg)
                        for n in names:
                            reg[n] += sum(done[c] for c in MEANING[n])
        for reg in regions.values():
            reg["threads"] = len(reg["threads"])
        return regions, total


class SimE2E(unittest.TestCase):
    shared = None

    def all_events(self):
        """One run counting every name, shared by the tests that only read it (Valgrind is slow)."""
        if SimE2E.shared is None:
            SimE2E.shared = self.sim_json("-e", ALL)
        return SimE2E.shared

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pmustat-sim-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def sim_json(self, *args, workload=("--loops", "20")):
        r = pmustat("--backend", "sim", "--json", *args, "--", WORKLOAD, *workload)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        rec = json.loads(r.stderr)
        if jsonschema:
            jsonschema.validate(rec, SCHEMA_DOC)
        return rec

    def test_exact_against_valgrind_every_event(self):
        rec = self.all_events()
        self.assertEqual(rec["backend"], "sim")
        sim = rec["simulator"]
        self.assertEqual(sim["name"], "valgrind")
        self.assertEqual(sim["tool"], "cachegrind")
        self.assertTrue(re.match(r"\d+\.\d+", sim["version"]), sim)
        self.assertEqual(sim["caches"]["LL"], {"size": 8388608, "assoc": 16, "line": 64})
        self.assertEqual(sim["processes"], 1)
        direct, nfiles = valgrind_direct(["--loops", "20"], sim["glibc_tunables"])
        self.assertEqual(nfiles, 1)
        got = counts_of(rec)
        for name, cols in MEANING.items():
            self.assertEqual(got[name], sum(direct[c] for c in cols), name)
        for e in rec["events"]:
            self.assertEqual(e["counter"], "simulated")
        # Enough work to mean something, little enough to stay quick.
        self.assertGreater(got["instructions"], 50000)

    def test_identical_runs_and_zero_spread(self):
        first = counts_of(self.all_events())
        second = counts_of(self.sim_json("-e", ALL))
        self.assertEqual(first, second)
        rec = self.sim_json("-e", "instructions,L1-dcache-load-misses,LLC-load-misses,branch-misses", "-r", "3")
        for e in rec["events"]:
            self.assertEqual(e["stats"]["stddev"], 0, e)
            self.assertEqual(e["stats"]["min"], e["stats"]["max"], e)
            self.assertEqual(e["value"], first[e["requested"]], e)

    def test_glibc_string_functions_fixed(self):
        """The command's glibc is told the same on every host; a user's own tunables come after ours."""
        tun = self.all_events()["simulator"]["glibc_tunables"]
        self.assertIn("glibc.cpu.hwcaps=-AVX,-AVX2,", tun)
        self.assertIn("-ERMS", tun)
        env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.check=0")
        r = pmustat("--backend", "sim", "--json", "-e", "instructions", "--", WORKLOAD, env=env)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        direct, _ = valgrind_direct([], tun + ":glibc.malloc.check=0", env=env)
        self.assertEqual(counts_of(json.loads(r.stderr))["instructions"], direct["Ir"])

    def test_text_and_csv_say_simulated(self):
        r = pmustat("--backend", "sim", "-e", "instructions,branch-misses", "--", WORKLOAD)
        self.assertEqual(r.returncode, 0)
        err = r.stderr.decode()
        self.assertIn("Simulated counts (backend sim): Valgrind ", err)
        self.assertIn("Cache model (fixed", err)
        self.assertIn("GLIBC_TUNABLES", err)
        self.assertRegex(err, r"[\d,]+\s+instructions")
        r = pmustat("--backend", "sim", "-x", ",", "-e", "instructions", "--", WORKLOAD)
        fields = r.stderr.decode().strip().split(",")
        self.assertEqual(fields[3], "instructions")
        self.assertEqual(fields[4], "simulated")

    def test_check_gates(self):
        n = counts_of(self.all_events())["instructions"]
        r = pmustat("--backend", "sim", "-r", "2", "--check", "instructions <= %d" % n, "--", WORKLOAD, "--loops", "20")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertIn("PASS", r.stderr.decode())
        r = pmustat("--backend", "sim", "--check", "instructions <= %d" % (n - 1), "--", WORKLOAD, "--loops", "20")
        self.assertEqual(r.returncode, 3, r.stderr.decode())
        self.assertIn("FAIL", r.stderr.decode())

    def test_baselines_record_their_backend(self):
        base = os.path.join(self.dir, "sim.json")
        r = pmustat("--backend", "sim", "-e", "instructions", "--save-baseline", base, "--", WORKLOAD)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(base) as f:
            self.assertEqual(json.load(f)["backend"], "sim")
        r = pmustat("--backend", "sim", "-e", "instructions", "--baseline", base, "--", WORKLOAD)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        # A simulated baseline against hardware counts, and the reverse: refused, naming both.
        r = pmustat("--backend", "perf", "-e", "task-clock", "--baseline", base, "--", WORKLOAD)
        self.assertEqual(r.returncode, 125)
        self.assertIn("holds simulated counts (backend sim)", r.stderr.decode())
        self.assertIn("this run counts hardware (backend perf)", r.stderr.decode())
        hw = os.path.join(self.dir, "hw.json")
        r = pmustat("--backend", "perf", "-e", "task-clock", "--save-baseline", hw, "--", WORKLOAD)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        r = pmustat("--backend", "sim", "-e", "instructions", "--baseline", hw, "--", WORKLOAD)
        self.assertEqual(r.returncode, 125)
        self.assertIn("holds hardware counts (backend perf), this run counts simulated (backend sim)",
                      r.stderr.decode())

    def test_exit_status_and_streams(self):
        r = pmustat("--backend", "sim", "-e", "instructions", "--", WORKLOAD, "--exit", "7")
        self.assertEqual(r.returncode, 7)
        r = pmustat("--backend", "sim", "-e", "instructions", "--", WORKLOAD, "--term")
        self.assertEqual(r.returncode, 128 + 15)
        r = pmustat("--backend", "sim", "--json", "-e", "instructions", "--", WORKLOAD, "--echo", "--say", "hello",
                    stdin=b"from stdin\n")
        self.assertEqual(r.returncode, 0)
        # The command's stdout is its own; Valgrind's own lines go to its log, never to the command's streams.
        self.assertEqual(r.stdout, b"from stdin\nhello\n")
        self.assertTrue(r.stderr.startswith(b"hello\n"), r.stderr[:200])
        self.assertNotIn(b"==", r.stderr)
        json.loads(r.stderr[len(b"hello\n"):])
        r = pmustat("--backend", "sim", "--", "/nonexistent/prog")
        self.assertEqual(r.returncode, 127)

    def test_children_are_summed(self):
        rec = self.sim_json("-e", ALL, workload=("--spawn", "--loops", "10"))
        self.assertEqual(rec["simulator"]["processes"], 2)
        direct, nfiles = valgrind_direct(["--spawn", "--loops", "10"], rec["simulator"]["glibc_tunables"])
        self.assertEqual(nfiles, 2)
        got = counts_of(rec)
        for name, cols in MEANING.items():
            self.assertEqual(got[name], sum(direct[c] for c in cols), name)
        alone = counts_of(self.sim_json("-e", "instructions", workload=("--loops", "10")))
        self.assertGreater(got["instructions"], 2 * alone["instructions"] * 0.9)

    @unittest.skipUnless(REGION_DEMO, "REGION_DEMO not given")
    def test_regions_exact_against_callgrind(self):
        """--regions without recompiling: nesting, recursion and a second thread, each region's sums
        Valgrind's own for the same boundaries, the whole run Callgrind's totals, every run the same."""
        names = ["instructions", "L1-dcache-load-misses", "branches", "LLC-load-misses"]
        r = pmustat("--backend", "sim", "--regions", "--json", "-r", "2", "-e", ",".join(names), "--", REGION_DEMO)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        rec = json.loads(r.stderr)
        if jsonschema:
            jsonschema.validate(rec, SCHEMA_DOC)
        self.assertEqual(rec["simulator"]["tool"], "callgrind")
        got = {g["name"]: g for g in rec["regions"]}
        self.assertEqual(sorted(got), ["cold", "hot", "inner", "rec", "worker"])
        self.assertEqual((got["hot"]["calls"], got["hot"]["threads"]), (3, 2))
        self.assertEqual(got["rec"]["calls"], 2)
        want, total = callgrind_regions(REGION_DEMO, rec["simulator"]["glibc_tunables"], names)
        for name, g in got.items():
            self.assertEqual(g["calls"], want[name]["calls"], name)
            self.assertEqual(g["threads"], want[name]["threads"], name)
            for e in g["events"]:
                if "misses" in e["requested"]:
                    # The threads share the simulated caches, and their interleaving is the kernel's: what
                    # the main thread touched before the worker's region ran moves a few of its misses.
                    self.assertAlmostEqual(e["value"], want[name][e["requested"]],
                                           delta=10 + want[name][e["requested"]] // 50, msg=(name, e["requested"]))
                    continue
                self.assertEqual(e["value"], want[name][e["requested"]], (name, e["requested"]))
                self.assertEqual(e["stats"]["stddev"], 0, (name, e))
        # The whole run: Callgrind's totals, but for the threads' interleaving, which Valgrind leaves to
        # the kernel: whether pthread_join finds the worker done moves its few instructions.
        whole = counts_of(rec)
        for n in names:
            self.assertAlmostEqual(whole[n], sum(total[c] for c in MEANING[n]), delta=max(200, whole[n] // 10000),
                                   msg=n)
        # Nested regions are inside their outer one; the outer one is more than its inner one.
        self.assertGreater(got["cold"]["events"][0]["value"], got["inner"]["events"][0]["value"])

    def test_refusals(self):
        for args, want in [
            (["-e", "cycles"], "has no simulated meaning: --backend sim counts instructions"),
            (["-e", "INST_RETIRED.ANY"], "has no simulated meaning"),
            (["-e", "task-clock"], "has no simulated meaning"),
            (["-e", "instructions:k"], "user-mode code only"),
            (["-M", "IPC"], "metrics"),
            (["-I", "100"], "-I"),
            (["-a"], "-C LIST, -a"),
        ]:
            r = pmustat("--backend", "sim", *args, "--", WORKLOAD)
            self.assertEqual(r.returncode, 125, (args, r.stderr.decode()))
            self.assertIn(want, r.stderr.decode(), args)

    def test_valgrind_missing(self):
        env = dict(os.environ, PATH="/nonexistent")
        r = pmustat("--backend", "sim", "--", WORKLOAD, env=env)
        self.assertEqual(r.returncode, 125)
        self.assertIn("apt-get install valgrind", r.stderr.decode())

    def test_auto_never_simulates(self):
        r = pmustat("--json", "-e", "task-clock", "--", WORKLOAD)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertNotEqual(json.loads(r.stderr)["backend"], "sim")


if __name__ == "__main__":
    unittest.main(verbosity=2)
