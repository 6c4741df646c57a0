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

    # -I with the perf backend (auto chose it here: no usable PMU, or software events only)

    def test_interval_perf_backend(self):
        rc, out, err = self.real("-I", "100", "-x", ",", "-e", "task-clock", "--", "sh", "-c", SPIN_FN + "spin 300000")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("--backend perf was given", err)
        rows = [l.split(",") for l in err.splitlines() if l.startswith("interval,")]
        self.assertGreaterEqual(len(rows), 2, err)
        total = [l.split(",") for l in err.splitlines() if l.startswith("count,")][0]
        # The intervals add up to the total exactly: the last is the final count less the others
        # (interval: type, time, round, run, cpu, value, unit, event; count: type, cpu, value, unit, ...;
        # task-clock in msec to the ns).
        self.assertEqual((total[3], rows[0][6]), ("msec", "msec"), err)
        self.assertEqual(sum(round(float(r[5]) * 1e6) for r in rows), round(float(total[2]) * 1e6), err)
        times = [float(r[1]) for r in rows]
        self.assertEqual(times, sorted(times))
        # --interval-count 2: two, then no more; the command runs to its end.
        rc, out, err = self.real("-I", "100", "--interval-count", "2", "-x", ",", "-e", "task-clock", "--",
                                 "sleep", "0.5")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len([l for l in err.splitlines() if l.startswith("interval,")]), 2, err)
        rc, out, err = self.real("--interval-count", "2", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("--interval-count N counts N intervals of -I MS: give -I", err)

    # perf's options

    def test_timeout_terminates_the_command(self):
        rc, out, err = self.real("--timeout", "300", "-e", "task-clock", "--", "sleep", "5")
        self.assertEqual(rc, 128 + 15, err)
        self.assertIn("pmustat: --timeout 300: sleep was sent SIGTERM", err)
        elapsed = float(err.split("seconds time elapsed")[0].split()[-1])
        self.assertTrue(0.25 <= elapsed < 2, elapsed)
        # Ended first: untouched, its own status.
        rc, out, err = self.real("--timeout", "5000", "-e", "task-clock", "--", "sh", "-c", "exit 3")
        self.assertEqual(rc, 3, err)
        self.assertNotIn("SIGTERM", err)
        # Without a command it bounds the counting, as --duration.
        if whole_cpus_allowed():
            doc = self.json_of("-a", "--timeout", "200", "-e", "task-clock")
            self.assertTrue(150e6 * len(CPUS) <= self.event(doc, "task-clock")["value"] <= 1e9 * len(CPUS))

    def test_delay_starts_counting_later(self):
        # Delayed past the command's end: nothing counted; without: its page faults.
        doc = self.json_of("-D", "5000", "-e", "page-faults", "--", "sleep", "0.2")
        self.assertEqual(self.event(doc, "page-faults")["value"], 0)
        doc = self.json_of("-e", "page-faults", "--", "sleep", "0.2")
        self.assertGreater(self.event(doc, "page-faults")["value"], 0)
        # 200 ms into a spin of about 0.7 s (0.2 s was seen for a third of it on an idle machine): some counted.
        doc = self.json_of("-D", "200", "-e", "task-clock", "--", "sh", "-c", SPIN_FN + "spin 500000")
        self.assertGreater(self.event(doc, "task-clock")["value"], 0)
        rc, out, err = self.emu("--backend", "msr", "-D", "100", "-e", "INST_RETIRED.ANY", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("use --backend perf", err)

    def test_control_fd_enables_and_disables(self):
        ctl_r, ctl_w = os.pipe()
        ack_r, ack_w = os.pipe()
        path = os.path.join(self.dir, "out.json")
        p = subprocess.Popen([PMUSTAT, "--json", "-o", path, "-D", "-1", "--control", "fd:%d,%d" % (ctl_r, ack_w),
                              "-e", "page-faults", "--", "sh", "-c", "sleep 0.3; " + "cat /dev/null; " * 20 +
                              "sleep 0.6"],
                             pass_fds=(ctl_r, ack_w), stderr=subprocess.PIPE, text=True)
        os.close(ctl_r)
        os.close(ack_w)
        acks = []
        for word in (b"ping\n", b"enable\n", b"disable\n"):
            os.write(ctl_w, word)
            acks.append(os.read(ack_r, 16))
            if word == b"enable\n":
                subprocess.run(["sleep", "0.5"])
        os.close(ctl_w)
        err = p.communicate(timeout=30)[1]
        os.close(ack_r)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(acks, [b"ack\n"] * 3)
        with open(path) as f:
            faults = self.event(json.load(f), "page-faults")["value"]
        # Enabled for the 20 cat processes (each faults dozens of pages), not before nor after.
        self.assertGreater(faults, 100)
        rc, out, err = self.real("--control", "fd:77", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("descriptor 77 is not open for reading", err)

    def test_pid_and_tid_while_a_command_runs(self):
        target = subprocess.Popen(["sh", "-c", SPIN_FN + "spin 100000000"])
        try:
            doc = self.json_of("-p", str(target.pid), "-e", "task-clock", "--", "sleep", "0.5")
            ms = self.event(doc, "task-clock")["value"] / 1e6
            # The spinning process's time while sleep ran (sleep's own would be ~1 msec; the machine may be busy).
            self.assertTrue(20 <= ms <= 700, ms)
            self.assertEqual(doc["pids"], [target.pid])
            rc, out, err = self.real("-p", str(target.pid), "-e", "task-clock", "--", "sleep", "0.2")
            self.assertIn("Performance counter stats for process id '%d'" % target.pid, err)
            self.assertNotIn("seconds user", err)
            doc = self.json_of("-t", str(target.pid), "-e", "task-clock", "--", "sleep", "0.5")
            ms = self.event(doc, "task-clock")["value"] / 1e6
            self.assertTrue(20 <= ms <= 700, ms)
            # Without a command: until --duration.
            doc = self.json_of("-t", str(target.pid), "-e", "task-clock", "--duration", "300ms")
            self.assertGreater(self.event(doc, "task-clock")["value"], 10e6)
            # Or until the thread ends.
            short = subprocess.Popen(["sleep", "0.3"])
            rc, out, err = self.real("-t", str(short.pid), "-e", "task-clock")
            short.wait()
            self.assertEqual(rc, 0, err)
            self.assertIn("Performance counter stats for thread id '%d'" % short.pid, err)
        finally:
            target.kill()
            target.wait()
        rc, out, err = self.real("-t", "1,x", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("-t 1,x: want the id of a running thread", err)

    def test_detailed_topdown_big_num_append(self):
        # -d: perf's detailed events after the default set (emulated Skylake: its table has them).
        rc, out, err = self.emu("-C", str(CORE), "-d", "--json", "--", "true")
        self.assertEqual(rc, 0, err)
        names = [e["requested"] for e in json.loads(err)["events"]]
        for name in ("instructions", "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses"):
            self.assertIn(name, names)
        self.assertNotIn("dTLB-loads", names)
        rc, out, err = self.emu("-C", str(CORE), "-dd", "--json", "--", "true")
        self.assertIn("dTLB-load-misses", [e["requested"] for e in json.loads(err)["events"]])
        # --topdown: -M TopdownL1.
        rc, out, err = self.emu("-C", str(CORE), "--topdown", "--json", "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertIn("Frontend_Bound", [m["name"] for m in json.loads(err)["metrics"]])
        # --no-big-num: digits alone; -B (the default): thousands separated.
        rc, out, err = self.emu("-C", str(CORE), "--no-big-num", "-e", "INST_RETIRED.ANY", "--",
                                os.path.join(os.path.dirname(RUN_UNDER_EMU), "emu-workload"), "--quiet",
                                "--retire", "0xc0:0:1234567")
        self.assertIn(" 1234567      INST_RETIRED.ANY", err)
        rc, out, err = self.emu("-C", str(CORE), "-B", "-e", "INST_RETIRED.ANY", "--",
                                os.path.join(os.path.dirname(RUN_UNDER_EMU), "emu-workload"), "--quiet",
                                "--retire", "0xc0:0:1234567")
        self.assertIn(" 1,234,567      INST_RETIRED.ANY", err)
        # --append: the second run's results after the first's.
        path = os.path.join(self.dir, "results.txt")
        for _ in range(2):
            rc, out, err = self.real("-o", path, "--append", "-e", "task-clock", "--", "true")
            self.assertEqual(rc, 0, err)
        with open(path) as f:
            self.assertEqual(f.read().count("Performance counter stats for 'true'"), 2)
        rc, out, err = self.real("-o", path, "-e", "task-clock", "--", "true")
        with open(path) as f:
            self.assertEqual(f.read().count("Performance counter stats for 'true'"), 1)
        # --metric-only: the computed figures, each naming its event; no counts.
        rc, out, err = self.real("--metric-only", "-e", "task-clock,page-faults", "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertRegex(err, r"\n +[0-9.]+ CPUs utilized +task-clock\n")
        self.assertRegex(err, r"\n +[0-9.]+ [KM]?/sec +page-faults\n")
        self.assertNotIn("msec", err)
        rc, out, err = self.emu("-C", str(CORE), "--metric-only", "-e", "instructions,cycles", "--",
                                os.path.join(os.path.dirname(RUN_UNDER_EMU), "emu-workload"), "--quiet",
                                "--retire", "0xc0:0:3000", "--retire", "0x3c:0:1000")
        self.assertRegex(err, r"\n +3.00  insn per cycle +instructions:u\n")
        self.assertNotIn("3,000", err)
        rc, out, err = self.real("--metric-only", "--json", "--", "true")
        self.assertEqual(rc, 125)
        rc, out, err = self.real("--append", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("--append adds the results to -o's file", err)

    # -A: each CPU's comment from its own counts, then the total with its own

    def test_no_aggr_total_line_and_comments(self):
        if CORE < 1:
            self.skipTest("one CPU")
        workload = os.path.join(os.path.dirname(RUN_UNDER_EMU), "emu-workload")
        rc, out, err = self.emu("-C", "%d,%d" % (CORE - 1, CORE), "-A", "-e", "instructions,cycles", "--",
                                workload, "--quiet", "--retire", "0xc0:0:3000", "--retire", "0x3c:0:1000")
        self.assertEqual(rc, 0, err)
        lines = [l.split("#")[0].split() + [l.split("#")[1].strip() if "#" in l else ""]
                 for l in err.splitlines() if "instructions" in l or "cycles" in l]
        # The workload runs on the first listed CPU it may use; the other counts 0 and has no ratio.
        inst = {l[0]: (l[1], l[3]) for l in lines if l[2].startswith("instructions")}
        self.assertEqual(sorted(inst), sorted(["CPU%d" % (CORE - 1), "CPU%d" % CORE, "total"]), err)
        self.assertEqual(inst["total"], ("3,000", "3.00  insn per cycle"), err)
        self.assertIn(("3,000", "3.00  insn per cycle"), inst.values())
        self.assertIn(("0", ""), inst.values())
        self.assertIn(["total", "1,000", "cycles:u", ""], lines)

    @unittest.skipUnless(whole_cpus_allowed(), "counting whole CPUs needs root or perf_event_paranoid <= 0")
    def test_no_aggr_total_line_perf_backend(self):
        rc, out, err = self.real("-a", "-A", "-e", "task-clock", "--", "sleep", "0.3")
        self.assertEqual(rc, 0, err)
        per = [l for l in err.splitlines() if l.startswith("CPU") and "task-clock" in l]
        total = [l for l in err.splitlines() if l.startswith("total ")]
        self.assertEqual(len(per), len(CPUS), err)
        self.assertEqual(len(total), 1, err)
        for l in per:
            self.assertIn("1.00", l.split("#")[1])
        self.assertIn("%d.00" % len(CPUS), total[0].split("#")[1])
        self.assertAlmostEqual(sum(float(l.split()[1]) for l in per), float(total[0].split()[1]), delta=0.05)

    # -G: a cgroup's tasks on the CPUs

    @staticmethod
    def cgroup_root():
        """The hierarchy perf's -G names are in: v1 with perf_event, else v2 (as pmustat looks)."""
        v2 = None
        with open("/proc/self/mounts") as f:
            for line in f:
                dev, mnt, fstype, opts = line.split()[:4]
                if fstype == "cgroup" and "perf_event" in opts.split(","):
                    return mnt
                if fstype == "cgroup2" and v2 is None:
                    v2 = mnt
        return v2

    @unittest.skipUnless(os.geteuid() == 0, "making a cgroup and moving a process into it needs root")
    def test_cgroup_counts_its_tasks_only(self):
        root = self.cgroup_root()
        if root is None:
            # A chroot that bound /sys without its submounts (the fresh-root check) has no cgroup filesystem.
            self.skipTest("no cgroup hierarchy mounted (/sys/fs/cgroup): -G has nothing to name")
        name = "pmustat-test-%d" % os.getpid()
        busy, idle = os.path.join(root, name), os.path.join(root, name + "-idle")
        os.mkdir(busy)
        os.mkdir(idle)
        spinner = subprocess.Popen(["sh", "-c", SPIN_FN + "spin 100000000"])
        try:
            with open(os.path.join(busy, "cgroup.procs"), "w") as f:
                f.write(str(spinner.pid))
            doc = self.json_of("-a", "-G", name, "-e", "task-clock", "--duration", "400ms")
            self.assertGreater(self.event(doc, "task-clock")["value"], 10e6)
            self.assertLess(self.event(doc, "task-clock")["value"], 450e6)
            doc = self.json_of("-a", "-G", name + "-idle", "-e", "task-clock", "--duration", "200ms")
            self.assertEqual(self.event(doc, "task-clock")["value"], 0)
            # With a command: the cgroup's tasks while it runs.
            rc, out, err = self.real("-a", "-G", name, "-e", "task-clock", "--", "sleep", "0.3")
            self.assertEqual(rc, 0, err)
            self.assertIn("what the tasks of cgroup %s ran on the cores while the command ran" % name, err)
        finally:
            spinner.kill()
            spinner.wait()
            os.rmdir(busy)
            os.rmdir(idle)
        rc, out, err = self.real("-a", "-G", "no-such-cgroup", "--duration", "100ms")
        self.assertEqual(rc, 125)
        self.assertIn("-G no-such-cgroup: %s/no-such-cgroup: no such cgroup" % root, err)
        rc, out, err = self.real("-G", name, "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("give -a or -C LIST", err)

    # --per-thread, --per-core

    def test_per_thread(self):
        # A process of two threads: python's main thread sleeping, a second one spinning.
        code = "import threading\nt = threading.Thread(target=lambda: [0 for _ in iter(int, 1)], daemon=True)\n" \
               "t.start()\nimport time\ntime.sleep(30)\n"
        target = subprocess.Popen([sys.executable, "-c", code])
        try:
            for _ in range(100):
                if len(os.listdir("/proc/%d/task" % target.pid)) >= 2:
                    break
                subprocess.run(["sleep", "0.02"])
            tids = sorted(int(t) for t in os.listdir("/proc/%d/task" % target.pid))
            rc, out, err = self.real("-p", str(target.pid), "--per-thread", "-e", "task-clock", "--duration", "300ms")
            self.assertEqual(rc, 0, err)
            lines = {l.split()[0]: float(l.split()[1]) for l in err.splitlines() if "task-clock" in l}
            names = [k for k in lines if k != "total"]
            self.assertEqual(sorted(int(k.rsplit("-", 1)[1]) for k in names), tids, err)
            self.assertAlmostEqual(sum(lines[k] for k in names), lines["total"], delta=0.05)
            # The spinning thread has nearly all of it, the sleeping one nearly none.
            self.assertGreater(max(lines[k] for k in names), 10 * min(lines[k] for k in names) + 5, err)
            self.assertLess(min(lines[k] for k in names), 5, err)
        finally:
            target.kill()
            target.wait()
        rc, out, err = self.real("--per-thread", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("give -p PID or -t TID", err)

    def test_per_core(self):
        if CORE < 1:
            self.skipTest("one CPU")
        workload = os.path.join(os.path.dirname(RUN_UNDER_EMU), "emu-workload")
        rc, out, err = self.emu("-C", "%d,%d" % (CORE - 1, CORE), "--per-core", "-e", "instructions,cycles", "--",
                                workload, "--quiet", "--retire", "0xc0:0:3000", "--retire", "0x3c:0:1000")
        self.assertEqual(rc, 0, err)
        inst = [l for l in err.splitlines() if "instructions" in l]
        # One line per core as sysfs groups the CPUs (S<package>-D<die>-C<core> and its CPUs), then the total.
        self.assertRegex(inst[0], r"^S\d+-D\d+-C\d+ [12] ")
        self.assertTrue(inst[-1].startswith("total ") and "3,000" in inst[-1] and "3.00  insn per cycle" in inst[-1],
                        err)
        counts = [int(l.split()[l.split().index("instructions:u") - 1].replace(",", "")) for l in inst[:-1]]
        self.assertEqual(sum(counts), 3000, err)
        rc, out, err = self.real("--per-core", "--", "true")
        self.assertEqual(rc, 125)
        self.assertIn("give -a or -C LIST", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
