#!/usr/bin/env python3
"""The counting plan of --dry-run on the real binary, for the CPU of a
libcpuid dump: no PMU and no emulator needed (this machine may have
neither). Every counter is assumed free, the power-up GLOBAL_CTRL too, and
the plan says so; nothing is counted and the command does not run."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PMUSTAT = sys.argv.pop(1)
DUMPS = sys.argv.pop(1)


def run(*args):
    p = subprocess.run([PMUSTAT] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def dump(name):
    return os.path.join(DUMPS, name)


class DryRunOnADump(unittest.TestCase):
    def test_skylake_plan(self):
        marker = os.path.join(tempfile.mkdtemp(), "ran")
        rc, out, err = run("--dry-run", "--cpu-dump", dump("intel-skylake-client-i7-6700k.txt"),
                           "-e", "LLC_MISSES,cycles,ref-cycles", "--", "touch", marker)
        self.assertEqual(rc, 0, err)
        self.assertFalse(os.path.exists(marker), "the command ran")
        self.assertIn("counting plan for core", err)
        self.assertIn("not read (a CPU of a dump): all assumed free", err)
        # Power-up GLOBAL_CTRL has the GP enables: per-counter enables, EN in the enable step.
        self.assertIn("wrmsr -p 0 0x186 0x1412e", err)
        self.assertIn("wrmsr -p 0 0x186 0x41412e", err)
        self.assertIn("LLC_MISSES on pmc0", err)
        self.assertIn("field1=0x2", err)
        self.assertIn("field2=0x2", err)
        self.assertIn("restore:", err)

    def test_a_choice_of_cpu_and_json(self):
        rc, out, err = run("--dry-run", "--cpu-dump", dump("intel-alderlake-hybrid-i9-12900k.txt"),
                           "-C", "0", "--json", "-o", "/dev/stdout", "-e", "instructions", "--", "true")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["core"], 0)
        self.assertEqual(doc["event_table"], "alderlake_goldencove")
        self.assertEqual(doc["events"][0]["status"], "not_counted")
        self.assertEqual(doc["events"][0]["status_text"], "not counted: dry run")
        self.assertEqual(doc["events"][0]["counter"], "fixed0")
        self.assertIn("counting plan for core 0", err)

    def test_more_events_than_counters_take_runs(self):
        events = ",".join("r%02x%02x" % (u, 0x10 + u) for u in range(1, 7))
        rc, out, err = run("--dry-run", "--cpu-dump", dump("intel-skylake-client-i7-6700k.txt"),
                           "-e", events, "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertIn("6 events, 2 runs of the command", err)
        self.assertIn("run 2 of 2:", err)
        # Run 2 puts what run 1 used and it does not back as it was.
        self.assertIn("not used in run 2", err)

    def test_a_cpu_pmustat_cannot_count(self):
        rc, out, err = run("--dry-run", "--cpu-dump", dump("amd-zen4-ryzen9-7950x.txt"),
                           "-e", "LLC_MISSES", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("pmustat does not program AMD's core PMU through the MSRs yet", err)

    def test_cpu_dump_needs_dry_run(self):
        rc, out, err = run("--cpu-dump", dump("intel-skylake-client-i7-6700k.txt"), "-e", "LLC_MISSES", "--", "true")
        self.assertEqual(rc, 125)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("goes with --dry-run", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
