#!/usr/bin/env python3
"""What `pmustat serve` costs (a benchmark: `meson test --benchmark serve-cost`):

    bench_serve.py PMUSTAT PMU_EMU LIBPMUEMU

On an emulated Ice Lake (8 general-purpose counters a core),
`pmustat serve --backend msr -C LIST` with 8 events on every CPU this
process may run on (a counting run may count only those: 64 where the
machine has them; bench-exposition renders the 64 cores' 512 samples in
process): the time of one scrape (GET /metrics, end to end), the memory a
scrape adds, and the exporter's CPU time while idle (nobody scraping) over
10 s; the same idle figure for the perf backend on software events.
Goals: a scrape under 10 ms and under 1 MiB, idle under 0.1 % of a core
for the perf backend, which reads nothing idle (the MSR backend reads
every counter once a second, for wraps: its idle figure is printed, and
held under 1 %).
Prints the figures; exits 1 when a goal is missed."""
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

PMUSTAT, PMU_EMU, LIBPMUEMU = map(os.path.abspath, sys.argv[1:4])
EVENTS = ("INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD,BR_INST_RETIRED.ALL_BRANCHES,BR_MISP_RETIRED.ALL_BRANCHES,"
          "LONGEST_LAT_CACHE.MISS,MEM_INST_RETIRED.ALL_LOADS,MEM_INST_RETIRED.ALL_STORES,L2_RQSTS.MISS")
failed = []


def serve(args, env=None):
    p = subprocess.Popen([PMUSTAT, "serve", "--listen", "127.0.0.1:0"] + args, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"http://(\S+)/metrics", line)
    if not m:
        p.kill()
        sys.exit(f"serve did not start: {line}{p.stderr.read()[-500:]}")
    return p, f"http://{m.group(1)}/metrics"


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(key + r":\s+(\d+)", f.read()).group(1))


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_percent(p, seconds=10):
    c0, t0 = cpu_seconds(p.pid), time.time()
    time.sleep(seconds)
    return 100 * (cpu_seconds(p.pid) - c0) / (time.time() - t0)


def stop(p):
    p.send_signal(signal.SIGTERM)
    p.stderr.read()
    p.wait(timeout=30)


def goal(ok, what):
    print(("ok    " if ok else "MISS  ") + what)
    if not ok:
        failed.append(what)


with tempfile.TemporaryDirectory(prefix="pmustat-bench-serve-") as d:
    st = os.path.join(d, "state")
    cpus = sorted(os.sched_getaffinity(0))[:64]
    subprocess.run([PMU_EMU, "init", "--model", "icelake", "--cpus", str(max(cpus) + 1), st], check=True)
    env = dict(os.environ, LD_PRELOAD=LIBPMUEMU, PMUSTAT_EMU_STATE=st)
    p, url = serve(["--backend", "msr", "-C", ",".join(map(str, cpus)), "-e", EVENTS], env)
    try:
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        nsamples = len([l for l in text.splitlines() if l.startswith("pmustat_") and "_total{" in l])
        rss0 = status(p.pid, "VmRSS")
        times = []
        for _ in range(100):
            t = time.perf_counter()
            body = urllib.request.urlopen(url, timeout=10).read()
            times.append((time.perf_counter() - t) * 1000)
        rss1, hwm = status(p.pid, "VmRSS"), status(p.pid, "VmHWM")
        print(f"scrape of 8 events on {len(cpus)} emulated cores: {nsamples} counter samples, {len(body)} bytes")
        print(f"  time per scrape (client's view, 100 scrapes): median {statistics.median(times):.2f} ms, "
              f"p90 {sorted(times)[89]:.2f} ms, max {max(times):.2f} ms")
        print(f"  memory: RSS {rss0} KiB after the first scrape, {rss1} KiB after 100 more (peak {hwm} KiB)")
        goal(nsamples == 8 * len(cpus), f"{8 * len(cpus)} counter samples (8 events x {len(cpus)} cores)")
        goal(statistics.median(times) < 10, "a scrape under 10 ms (median)")
        goal(rss1 - rss0 < 1024 and hwm - rss0 < 1024, "a scrape adds under 1 MiB")
        idle = idle_percent(p)
        print(f"  idle CPU, MSR backend (one read of {nsamples} counters a second for wraps): {idle:.3f} % of a core")
        goal(idle < 1.0, "MSR backend idle under 1 % of a core (its reads for wraps, through the emulator)")
    finally:
        stop(p)
    p, url = serve(["-C", str(cpus[0]), "-e", "task-clock,page-faults,context-switches"])
    try:
        urllib.request.urlopen(url, timeout=10).read()
        idle = idle_percent(p)
        print(f"  idle CPU, perf backend: {idle:.3f} % of a core")
        goal(idle < 0.1, "perf backend idle under 0.1 % of a core")
    finally:
        stop(p)
sys.exit(1 if failed else 0)
