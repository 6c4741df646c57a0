#!/usr/bin/env python3
"""A perf stat user's habits, end to end with the real pmustat: the perf
backend on the real kernel's software events (no PMU needed), the MSR
backend on the emulated PMU (run-under-emu, every MSR restored after).

    test_stat_habits_e2e.py PMUSTAT RUN_UNDER_EMU PMU_EMU"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PMUSTAT, RUN_UNDER_EMU, PMU_EMU = map(os.path.abspath, sys.argv[1:4])
del sys.argv[1:4]

CPUS = sorted(os.sched_getaffinity(0))
CORE = CPUS[-1]


def whole_cpus_allowed():
    """Counting everything on a CPU needs root or perf_event_paranoid <= 0."""
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return os.geteuid() == 0 or int(f.read()) <= 0


# Two busy loops of @ms each, in parallel (two processes of one sh).
BURN = ('busy() { end=$(($(date +%%s%%N) + %d000000)); while [ $(date +%%s%%N) -lt $end ]; do :; done; }; '
        'busy %d & busy %d & wait')


# Two loops of @n iterations of the shell's own arithmetic (no fork: always runnable), in parallel.
SPIN_FN = 'spin() { i=0; while [ $i -lt $1 ]; do i=$((i + 1)); done; }; '
SPIN = SPIN_FN + 'spin %d & spin %d & wait'


class Habits(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pmustat-habits-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def real(self, *args, timeout=60):
        """pmustat ARGS on the real kernel: (status, stdout, stderr)."""
        p = subprocess.run([PMUSTAT, *args], capture_output=True, text=True, timeout=timeout, cwd=self.dir)
        return p.returncode, p.stdout, p.stderr

    def emu(self, *args, model="skylake"):
        """pmustat ARGS on an emulated machine of CORE + 1 CPUs; every MSR as it was after."""
        before, after = os.path.join(self.dir, "before"), os.path.join(self.dir, "after")
        p = subprocess.run([RUN_UNDER_EMU, "--model", model, "--cpus", str(CORE + 1), "--save-before", before,
                            "--save-after", after, "--", PMUSTAT, *args],
                           capture_output=True, text=True, timeout=60, cwd=self.dir)
        d = subprocess.run([PMU_EMU, "diff", before, after], capture_output=True, text=True)
        self.assertEqual(d.returncode, 0, "MSRs not restored:\n" + d.stdout + d.stderr)
        return p.returncode, p.stdout, p.stderr

    def json_of(self, *args):
        path = os.path.join(self.dir, "out.json")
        rc, out, err = self.real("--json", "-o", path, *args)
        self.assertEqual(rc, 0, err)
        with open(path) as f:
            return json.load(f)

    @staticmethod
    def event(doc, name):
        return [e for e in doc["events"] if e["name"] == name][0]

    # No surprise pinning

    def test_perf_backend_does_not_pin(self):
        rc, out, err = self.real("--backend", "perf", "--", "nproc")
        self.assertEqual((rc, out.strip()), (0, str(len(CPUS))), err)
        # Nor the command's children: each busy loop may run on any CPU.
        rc, out, err = self.real("-e", "task-clock", "--", "sh", "-c",
                                 "grep Cpus_allowed_list /proc/self/status; " + BURN % (200, 200, 200))
        self.assertEqual(rc, 0, err)
        self.assertNotIn("on core", err)
        allowed = os.popen("grep Cpus_allowed_list /proc/self/status").read()
        self.assertEqual(out, allowed)
        self.assertIn("task-clock", err)

    def test_msr_backend_says_when_threads_queue(self):
        rc, out, err = self.emu("-e", "INST_RETIRED.ANY", "--", "sh", "-c", SPIN % (200000, 200000))
        self.assertEqual(rc, 0, err)
        self.assertRegex(err, r"pmustat: note: sh ran [2-9] threads or processes at once on core %d," % CORE)
        self.assertIn("-C LIST --pin-threads", err)
        self.assertIn("--backend perf", err)
        self.assertEqual(len([l for l in err.splitlines() if "at once on core" in l]), 1, err)
        # One at a time, though a shell forks: nothing to say.
        rc, out, err = self.emu("-e", "INST_RETIRED.ANY", "--", "sh", "-c",
                                SPIN_FN + "spin 200000; echo $(spin 1000); spin 100000")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("at once", err)

    # -a, -C: the CPUs, software events too

    @unittest.skipUnless(whole_cpus_allowed(), "counting whole CPUs needs root or perf_event_paranoid <= 0")
    def test_all_cpus_counts_software_events_system_wide(self):
        doc = self.json_of("-a", "--duration", "1s", "-e", "task-clock")
        ms = self.event(doc, "task-clock")["value"] / 1e6
        self.assertTrue(900 * len(CPUS) <= ms <= 1200 * len(CPUS), ms)
        # With a command too: the CPUs while it runs, not its own 0.5 msec.
        doc = self.json_of("-a", "-e", "task-clock", "--", "sleep", "0.5")
        ms = self.event(doc, "task-clock")["value"] / 1e6
        self.assertTrue(450 * len(CPUS) <= ms <= 1000 * len(CPUS), ms)
        rc, out, err = self.real("-a", "-e", "task-clock", "--", "sleep", "0.3")
        self.assertEqual(rc, 0, err)
        self.assertIn("everything that ran on the cores while the command ran", err)
        self.assertIn("%d.0" % len(CPUS), err.split("CPUs utilized")[0].split("#")[-1])

    @unittest.skipUnless(whole_cpus_allowed(), "counting whole CPUs needs root or perf_event_paranoid <= 0")
    def test_msr_backend_software_events_count_the_core(self):
        # The table has one scope: the core's hardware counts beside the core's task-clock.
        rc, out, err = self.emu("-e", "INST_RETIRED.ANY,task-clock", "--", "sleep", "0.3")
        self.assertEqual(rc, 0, err)
        self.assertIn("Software events: through perf_event, everything on the counted core too", err)
        ms = float(err.split(" msec")[0].split()[-1])
        self.assertTrue(250 <= ms <= 1000, err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
