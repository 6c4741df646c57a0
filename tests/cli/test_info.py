#!/usr/bin/env python3
"""End-to-end tests of `pmustat info` on the real binary: every CPUID dump in
tests/data/cpuid through --cpu-dump (the JSON contract, the event table chosen
by family/model/stepping and core type, never by codename), the error paths,
and the live run on this machine (which has no usable PMU)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PMUSTAT = sys.argv.pop(1)
DUMPS = sys.argv.pop(1)

# file -> (cpu, usable, vendor, family, model, stepping, core_type, version,
#          gp, gp_width, fixed, fixed_width, event_table)
CASES = {
    "intel-netburst-prescott-pentium4-640.txt": (None, True, "Intel", 15, 4, 3, None, 0, 0, 0, 0, 0, "netburst"),
    "intel-netburst-northwood-pentium4-2.66ghz.txt": (None, True, "Intel", 15, 2, 9, None, 0, 0, 0, 0, 0, "netburst"),
    "intel-core2-merom-x6800.txt": (None, True, "Intel", 6, 0x0F, 6, None, 2, 2, 40, 3, 40, None),
    "intel-core2-penryn-x9650.txt": (None, True, "Intel", 6, 0x17, 6, None, 2, 2, 40, 3, 40, None),
    "intel-nehalem-client-i7-920.txt": (None, True, "Intel", 6, 0x1A, 4, None, 3, 4, 48, 3, 48, "nehalemep"),
    "intel-nehalem-ex-xeon-x7560-hyperv-root.txt": (None, False, "Intel", 6, 0x2E, 6, None, 0, 0, 0, 0, 0, None),
    "intel-westmere-client-i5-650.txt": (None, True, "Intel", 6, 0x25, 2, None, 3, 4, 48, 3, 48, "westmereep-sp"),
    "intel-sandybridge-client-i7-2600.txt": (None, True, "Intel", 6, 0x2A, 7, None, 3, 4, 48, 3, 48, "sandybridge"),
    "intel-ivybridge-client-i7-3770k.txt": (None, True, "Intel", 6, 0x3A, 9, None, 3, 4, 48, 3, 48, "ivybridge"),
    "intel-haswell-client-i7-4770.txt": (None, True, "Intel", 6, 0x3C, 3, None, 3, 4, 48, 3, 48, "haswell"),
    "intel-haswell-ep-xeon-e5-2699v3.txt": (None, True, "Intel", 6, 0x3F, 2, None, 3, 4, 48, 3, 48, "haswellx"),
    "intel-broadwell-client-i7-5775c.txt": (None, True, "Intel", 6, 0x47, 1, None, 3, 4, 48, 3, 48, "broadwell"),
    "intel-broadwell-ep-xeon-e5-2696v4.txt": (None, True, "Intel", 6, 0x4F, 1, None, 3, 4, 48, 3, 48, "broadwellx"),
    "intel-skylake-client-i7-6700k.txt": (None, True, "Intel", 6, 0x5E, 3, None, 4, 4, 48, 3, 48, "skylake"),
    "intel-skylake-sp-xeon-platinum-8180.txt": (None, True, "Intel", 6, 0x55, 4, None, 4, 4, 48, 3, 48, "skylakex"),
    "intel-kabylake-client-i7-7700k.txt": (None, True, "Intel", 6, 0x9E, 9, None, 4, 4, 48, 3, 48, "skylake"),
    "intel-coffeelake-client-i7-8700k.txt": (None, True, "Intel", 6, 0x9E, 0xA, None, 4, 4, 48, 3, 48, "skylake"),
    # Same family/model as Skylake-SP: only the stepping tells (libcpuid says "Skylake").
    "intel-cascadelake-sp-xeon-gold-5215.txt": (None, True, "Intel", 6, 0x55, 7, None, 4, 4, 48, 3, 48, "cascadelakex"),
    "intel-icelake-client-i7-1065g7.txt": (None, True, "Intel", 6, 0x7E, 5, None, 5, 8, 48, 4, 48, "icelake"),
    # libcpuid calls it "P-III Xeon (Cascades)".
    "intel-icelake-sp-xeon-platinum-8351n.txt": (None, True, "Intel", 6, 0x6A, 6, None, 5, 8, 48, 4, 48, "icelakex"),
    "intel-tigerlake-client-i7-1165g7.txt": (None, True, "Intel", 6, 0x8C, 1, None, 5, 8, 48, 4, 48, "tigerlake"),
    "intel-alderlake-hybrid-i9-12900k-pcore.txt": (None, True, "Intel", 6, 0x97, 2, "core", 5, 8, 48, 4, 48, "alderlake_goldencove"),
    "intel-alderlake-hybrid-i9-12900k-ecore.txt": (None, True, "Intel", 6, 0x97, 2, "atom", 5, 6, 48, 3, 48, "alderlake_gracemont"),
    "intel-raptorlake-hybrid-i5-13600k.txt": (0, True, "Intel", 6, 0xB7, 1, "core", 5, 8, 48, 4, 48, "alderlake_goldencove"),
    "intel-meteorlake-hybrid-ultra7-155h.txt": (None, True, "Intel", 6, 0xAA, 4, "atom", 5, 8, 48, 3, 48, "meteorlake_crestmont"),
    "intel-arrowlake-hybrid-ultra5-245k.txt": (None, True, "Intel", 6, 0xC6, 2, "core", 6, 10, 48, 4, 48, "arrowlake_lioncove"),
    "intel-lunarlake-hybrid-ultra9-288v.txt": (0, True, "Intel", 6, 0xBD, 1, "core", 6, 10, 48, 4, 48, "lunarlake_lioncove"),
    "intel-sapphirerapids-xeon-w9-3475x.txt": (None, True, "Intel", 6, 0x8F, 8, None, 5, 8, 48, 4, 48, "sapphirerapids"),
    "intel-emeraldrapids-xeon-platinum-8570.txt": (None, True, "Intel", 6, 0xCF, 2, None, 5, 8, 48, 4, 48, "emeraldrapids"),
    # libcpuid calls it "Haswell".
    "intel-goldmont-celeron-j3455.txt": (None, True, "Intel", 6, 0x5C, 9, None, 4, 4, 48, 3, 48, "goldmont"),
    "intel-gracemont-alderlake-n-i3-n305.txt": (None, True, "Intel", 6, 0xBE, 0, "atom", 5, 6, 48, 3, 48, "alderlake_gracemont"),
    "vm-qemu-virtual-cpu64-rhel6.txt": (None, False, "Intel", 6, 0x0D, 3, None, 0, 0, 0, 0, 0, None),
    # AMD's core PMU: six 48-bit counters from CPUID 0x8000_0022 EBX[3:0] (PerfMonV2).
    "amd-zen4-ryzen9-7950x.txt": (None, False, "AMD", 25, 0x61, 2, None, 0, 6, 48, 0, 0, None),
}


def run(*args):
    return subprocess.run([PMUSTAT, *args], capture_output=True, text=True, timeout=60)


def info_json(*args):
    p = run("info", "--json", *args)
    return p, json.loads(p.stdout)


class InfoFromDumps(unittest.TestCase):
    def test_every_dump(self):
        for name, exp in CASES.items():
            with self.subTest(dump=name):
                (cpu, usable, vendor, family, model, stepping, core_type, version,
                 gp, gp_width, fixed, fixed_width, table) = exp
                args = ["--cpu-dump", os.path.join(DUMPS, name)]
                if cpu is not None:
                    args += ["-C", str(cpu)]
                p, j = info_json(*args)
                self.assertEqual(p.returncode, 0 if usable else 1, p.stderr)
                self.assertEqual(j["format_version"], 1)
                self.assertIs(j["usable"], usable)
                self.assertIsInstance(j["verdict"], str)
                self.assertEqual(j["cpu"]["vendor"], vendor)
                self.assertEqual((j["cpu"]["family"], j["cpu"]["model"], j["cpu"]["stepping"]),
                                 (family, model, stepping))
                self.assertEqual(j["cpu"]["core_type"], core_type)
                pmu = j["pmu"]
                self.assertEqual((pmu["version"], pmu["gp_counters"], pmu["gp_width"],
                                  pmu["fixed_counters"], pmu["fixed_width"]),
                                 (version, gp, gp_width, fixed, fixed_width))
                self.assertEqual(j["event_table"], table)
                self.assertIsNone(j["access"])
                self.assertIsNone(j["perf_event_paranoid"])
                if usable and version:
                    self.assertIn("INSTRUCTIONS_RETIRED", pmu["arch_events"])

    def test_netburst_pmu_is_recognised(self):
        # Family 15 without leaf 0xA: the ESCR/CCCR PMU, and an honest verdict.
        for name, escrs, ht in (("intel-netburst-northwood-pentium4-2.66ghz.txt", 45, False),
                                ("intel-netburst-prescott-pentium4-640.txt", 43, True)):
            with self.subTest(dump=name):
                dump = os.path.join(DUMPS, name)
                p = run("info", "--cpu-dump", dump)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("NetBurst PMU: 18 counters \u00d7 40 bits, ESCR/CCCR", p.stderr)
                self.assertIn("event table    netburst", p.stderr)
                self.assertEqual("HT " in p.stderr, ht, p.stderr)
                _, j = info_json("--cpu-dump", dump)
                nb = j["pmu"]["netburst"]
                self.assertEqual((nb["counters"], nb["width"], nb["cccrs"], nb["escrs"], nb["ht"],
                                  nb["thread"]), (18, 40, 18, escrs, ht, 0))
                # A dump has no MSRs: IA32_MISC_ENABLE is unknown, not guessed.
                self.assertIsNone(nb["misc_enable"])
                self.assertIsNone(nb["perfmon_available"])
                self.assertEqual("pmustat could count on that CPU (given MSR access on its machine)", j["verdict"])
                self.assertTrue(j["usable"])
        _, j = info_json("--cpu-dump", os.path.join(DUMPS, "intel-skylake-client-i7-6700k.txt"))
        self.assertIsNone(j["pmu"]["netburst"])

    def test_arch_events_follow_ebx(self):
        # Nehalem's EBX = 0x40: branch mispredicts retired is not available.
        _, j = info_json("--cpu-dump", os.path.join(DUMPS, "intel-nehalem-client-i7-920.txt"))
        self.assertNotIn("BRANCH_MISSES", j["pmu"]["arch_events"])
        self.assertIn("BRANCH_INSTRUCTIONS", j["pmu"]["arch_events"])
        # Arrow Lake's EBX = 0x280 flags slots and bad speculation, what not every core type
        # has; each type's own list is CPUID.23H.3's: the P-core has slots, not bad speculation.
        _, j = info_json("--cpu-dump", os.path.join(DUMPS, "intel-arrowlake-hybrid-ultra5-245k.txt"), "-C", "0")
        self.assertIn("TOPDOWN_SLOTS", j["pmu"]["arch_events"])
        self.assertNotIn("TOPDOWN_BAD_SPECULATION", j["pmu"]["arch_events"])
        self.assertIn("TOPDOWN_BACKEND_BOUND", j["pmu"]["arch_events"])

    def test_amd_core_pmu_is_described(self):
        # What CPUID says of AMD's core PMU, under the family's key; null on other CPUs.
        p, j = info_json("--cpu-dump", os.path.join(DUMPS, "amd-zen4-ryzen9-7950x.txt"))
        self.assertEqual(j["pmu"]["zen"], {"counters": 6, "width": 48, "perfctr_ext_core": True,
                                           "perfmon_v2": True,
                                           "counters_from": "CPUID 0x8000_0022 EBX[3:0] (PerfMonV2)"})
        self.assertNotIn("not an Intel CPU", j["verdict"])
        p = run("info", "--cpu-dump", os.path.join(DUMPS, "amd-zen4-ryzen9-7950x.txt"))
        self.assertIn("PerfCtrExtCore yes; PerfMonV2 yes", p.stderr)
        _, j = info_json("--cpu-dump", os.path.join(DUMPS, "intel-skylake-client-i7-6700k.txt"))
        self.assertIsNone(j["pmu"]["zen"])

    def test_verdicts_name_the_cause(self):
        cases = {
            "amd-zen4-ryzen9-7950x.txt": "AMD family 19h core PMU: 6 counters",
            "vm-qemu-virtual-cpu64-rhel6.txt": "VM exposes no PMU",
            "intel-nehalem-ex-xeon-x7560-hyperv-root.txt": "enable the virtual PMU",
        }
        for name, text in cases.items():
            with self.subTest(dump=name):
                p = run("info", "--cpu-dump", os.path.join(DUMPS, name))
                self.assertEqual(p.returncode, 1)
                self.assertEqual(p.stdout, "")
                self.assertIn(text, p.stderr)

    def test_human_output_goes_to_stderr(self):
        p = run("info", "--cpu-dump", os.path.join(DUMPS, "intel-skylake-client-i7-6700k.txt"))
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout, "")
        self.assertIn("GP counters  4 x 48 bits", p.stderr)
        self.assertIn("event table    skylake", p.stderr)


class InfoErrors(unittest.TestCase):
    def test_unreadable_dump_is_exit_125_naming_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.txt")
            with open(bad, "w") as f:
                f.write("no cpuid here\n")
            for path in (bad, os.path.join(d, "missing.txt")):
                with self.subTest(path=path):
                    p = run("info", "--cpu-dump", path)
                    self.assertEqual(p.returncode, 125)
                    self.assertIn(path, p.stderr)
                    p, j = info_json("--cpu-dump", path)
                    self.assertEqual(p.returncode, 125)
                    self.assertIn(path, j["error"])
                    self.assertIs(j["usable"], False)

    def test_usage_errors(self):
        for args in (["--bogus"], ["-C", "x"], ["-C", "-1"], ["extra"],
                     ["--cpu-dump", "a", "--save-cpu-dump", "b"]):
            with self.subTest(args=args):
                p = run("info", *args)
                self.assertEqual(p.returncode, 125)
                self.assertNotEqual(p.stderr, "")

    def test_cpu_not_in_dump(self):
        p = run("info", "--cpu-dump", os.path.join(DUMPS, "intel-skylake-client-i7-6700k.txt"), "-C", "3")
        self.assertEqual(p.returncode, 125)
        self.assertIn("CPU 3 is not in it", p.stderr)


class InfoLive(unittest.TestCase):
    """This machine: a VM with no usable PMU (Intel without vPMU, or AMD)."""

    def test_live_verdict(self):
        p, j = info_json()
        self.assertEqual(j["source"], "live")
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            self.assertEqual(j["perf_event_paranoid"], int(f.read()))
        self.assertIn("perf_event_paranoid = ", run("info").stderr)
        if j["usable"]:
            self.skipTest("this machine has a usable PMU")
        self.assertEqual(p.returncode, 1)
        self.assertTrue(j["verdict"].startswith("cannot count"))
        # An AMD VM whose CPUID hides the core PMU (this project's machines) is named as such.
        zen = j["pmu"]["zen"]
        if j["cpu"]["vendor"] == "AMD" and zen and not zen["perfctr_ext_core"] and not zen["perfmon_v2"]:
            self.assertIn("cannot count: this VM exposes no PMU", j["verdict"])
            self.assertIn("--backend perf", j["verdict"])
            self.assertNotIn("not an Intel CPU", j["verdict"])

    def test_save_and_reload_dump(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "host.cpuid")
            p = run("info", "--save-cpu-dump", path, "-C", "0", "--json")
            self.assertIn(p.returncode, (0, 1), p.stderr)
            live = json.loads(p.stdout)
            p, j = info_json("--cpu-dump", path)
            self.assertIn(p.returncode, (0, 1), p.stderr)
            for key in ("vendor", "family", "model", "stepping"):
                self.assertEqual(j["cpu"][key], live["cpu"][key])
            self.assertEqual(j["pmu"], live["pmu"])
            # Never write through a symlink another user planted (root can plant one).
            if os.geteuid() == 0:
                link = os.path.join(d, "link")
                os.symlink(os.path.join(d, "elsewhere"), link)
                os.lchown(link, 65534, 65534)
                p = run("info", "--save-cpu-dump", link)
                self.assertEqual(p.returncode, 125)
                self.assertIn("symbolic link owned by uid 65534", p.stderr)
                self.assertFalse(os.path.exists(os.path.join(d, "elsewhere")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
