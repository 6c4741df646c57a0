#!/usr/bin/env python3
"""AMD Zen end to end on the emulated Zen 2, Zen 4 and Zen 5 cores
(run-under-emu, with Linux's NMI watchdog on counter 0): `info` says what
CPUID gave (counters, PerfCtrExtCore, PerfMonV2) and why the MSR backend
cannot count yet; --save-cpu-dump keeps CPUID 0x8000_0022; `stat` on the MSR backend refuses with exit 125 before
anything is written, so the watchdog's counter and every other register
are as they were (pmu-emu diff); `state` and `reset --zero` refuse alike.

    check_zen_emu.py PMUSTAT RUN_UNDER_EMU PMU_EMU"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PMUSTAT, RUN_UNDER_EMU, PMU_EMU = map(os.path.abspath, sys.argv[1:4])
del sys.argv[1:4]

MODELS = {"zen2": (0x17, False), "zen4": (0x19, True), "zen5": (0x1A, True)}


class ZenEmu(unittest.TestCase):
    def run_emu(self, model, *args):
        with tempfile.TemporaryDirectory(prefix="pmustat-zen-") as d:
            before, after = os.path.join(d, "before"), os.path.join(d, "after")
            p = subprocess.run([RUN_UNDER_EMU, "--model", model, "--watchdog", "--cpus", "2",
                                "--save-before", before, "--save-after", after, "--", PMUSTAT, *args],
                               capture_output=True, text=True, timeout=60)
            diff = subprocess.run([PMU_EMU, "diff", before, after], capture_output=True, text=True)
            return p, diff

    def test_info(self):
        for model, (family, v2) in MODELS.items():
            with self.subTest(model=model):
                p, diff = self.run_emu(model, "info", "--json", "-C", "0")
                self.assertEqual(p.returncode, 1, p.stderr)
                j = json.loads(p.stdout)
                self.assertEqual(j["cpu"]["family"], family)
                self.assertEqual(j["pmu"]["zen"]["counters"], 6)
                self.assertTrue(j["pmu"]["zen"]["perfctr_ext_core"])
                self.assertEqual(j["pmu"]["zen"]["perfmon_v2"], v2)
                self.assertIn("AMD family %Xh core PMU: 6 counters" % family, j["verdict"])
                self.assertNotIn("not an Intel CPU", j["verdict"])
                self.assertEqual(diff.returncode, 0, diff.stdout)

    def test_saved_dump_keeps_leaf_8000_0022(self):
        # CPUID 0x8000_0022 is beyond libcpuid's raw data: --save-cpu-dump writes it apart, --cpu-dump reads it.
        with tempfile.TemporaryDirectory(prefix="pmustat-zen-dump-") as d:
            path = os.path.join(d, "zen4.cpuid")
            p, _ = self.run_emu("zen4", "info", "-C", "0", "--save-cpu-dump", path)
            self.assertIn(p.returncode, (0, 1), p.stderr)
            with open(path) as f:
                self.assertIn("CPUID 80000022: 00000003-00084106-00000003-00000000", f.read())
            p = subprocess.run([PMUSTAT, "info", "--json", "--cpu-dump", path], capture_output=True, text=True)
            zen = json.loads(p.stdout)["pmu"]["zen"]
            self.assertTrue(zen["perfmon_v2"])
            self.assertEqual(zen["counters"], 6)

    def test_stat_refuses_and_writes_nothing(self):
        for model in MODELS:
            with self.subTest(model=model):
                p, diff = self.run_emu(model, "stat", "--backend", "msr", "-C", "0",
                                       "-e", "instructions,cycles", "--", "true")
                self.assertEqual(p.returncode, 125, p.stderr)
                self.assertIn("pmustat does not program AMD's core PMU through the MSRs yet", p.stderr)
                self.assertIn("--backend perf", p.stderr)
                # The watchdog's PERF_CTL0 and GlobalCtl as found: nothing was written.
                self.assertEqual(diff.returncode, 0, diff.stdout)

    def test_state_and_reset_refuse(self):
        # reset without a journal has nothing to do (exit 0, as on Intel); --zero would write.
        for args in (("state", "-C", "0"), ("reset", "--zero", "-C", "0")):
            with self.subTest(args=args):
                p, diff = self.run_emu("zen4", *args)
                self.assertNotEqual(p.returncode, 0, p.stderr)
                self.assertIn("AMD family 19h core PMU", p.stderr)
                self.assertEqual(diff.returncode, 0, diff.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
