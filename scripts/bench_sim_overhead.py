#!/usr/bin/env python3
"""What --backend sim costs on top of running Valgrind directly (a figure,
not a test): the same workload, the same Cachegrind options and
environment, N times each way, alternating; wall time and CPU time (the
process tree's user + sys) per run, the medians and pmustat's overhead in
percent (goal: under 5 %).

    bench_sim_overhead.py PMUSTAT WORKLOAD [RUNS] [LOOPS]"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PMUSTAT, WORKLOAD = map(os.path.abspath, sys.argv[1:3])
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 7
LOOPS = sys.argv[4] if len(sys.argv) > 4 else "2000"
VALGRIND = shutil.which("valgrind")
if VALGRIND is None:
    print("skipped: valgrind is not installed (apt-get install valgrind)")
    sys.exit(77)


def timed(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    probe = subprocess.run([PMUSTAT, "--backend", "sim", "--json", "-e", "instructions", "--", WORKLOAD, "--loops", LOOPS],
                           capture_output=True, check=True)
    import json
    rec = json.loads(probe.stderr)
    tunables = rec["simulator"]["glibc_tunables"]
    env = dict(os.environ)
    direct_env = dict(env, GLIBC_TUNABLES=tunables)
    with tempfile.TemporaryDirectory(prefix="pmustat-sim-bench-") as d:
        direct = [VALGRIND, "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "--I1=32768,8,64",
                  "--D1=32768,8,64", "--LL=8388608,16,64", "--trace-children=yes",
                  "--cachegrind-out-file=%s/out.%%p" % d, "--log-file=%s/log.%%p" % d, "--", WORKLOAD, "--loops", LOOPS]
        through = [PMUSTAT, "--backend", "sim", "-e", "instructions,L1-dcache-load-misses,LLC-load-misses,branch-misses",
                   "--", WORKLOAD, "--loops", LOOPS]
        dw, dc, pw, pc = [], [], [], []
        for _ in range(RUNS):
            w, c = timed(direct, direct_env)
            dw.append(w)
            dc.append(c)
            for n in os.listdir(d):
                os.unlink(os.path.join(d, n))
            w, c = timed(through, env)
            pw.append(w)
            pc.append(c)
    mdw, mdc, mpw, mpc = map(statistics.median, (dw, dc, pw, pc))
    print("workload: %s --loops %s, %d simulated instructions; %d runs each way, medians" %
          (WORKLOAD, LOOPS, rec["events"][0]["value"], RUNS))
    print("valgrind directly:  wall %.3f s  cpu %.3f s" % (mdw, mdc))
    print("pmustat --backend sim: wall %.3f s  cpu %.3f s" % (mpw, mpc))
    print("pmustat's overhead: wall %+.2f %%  cpu %+.2f %%  (goal: under 5 %%)" %
          (100 * (mpw - mdw) / mdw, 100 * (mpc - mdc) / mdc))


main()
