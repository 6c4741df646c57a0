#!/usr/bin/env python3
"""The Prometheus exposition end to end, against the real components:

    test_exposition_e2e.py promtool     PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD
    test_exposition_e2e.py textfile     PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD
    test_exposition_e2e.py prometheus   PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD
    test_exposition_e2e.py hostile      PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD
    test_exposition_e2e.py emu-serve    PMUSTAT RUN_UNDER_EMU EMU_WORKLOAD PMU_EMU LIBPMUEMU

promtool: `promtool check metrics` passes, with no warning, on
--output-format prometheus of every run mode (one core, -A on two, -r,
without a command, the perf backend's software events, rows not counted),
and the counters hold what emu-workload retired. textfile: a --textfile
run's counts in prometheus-node-exporter's /metrics (textfile collector
only). prometheus: Debian's prometheus scrapes `pmustat serve` on the perf
backend's software events; through its HTTP API the counters arrived, with
their labels, increasing. hostile: malformed, slow, oversized and
other-path requests and 1,000 connections leave the exporter serving, its
counters never reset, its memory bounded. emu-serve: `pmustat serve
--backend msr` on the emulated PMU scraped by Prometheus, whose stored
increases are exactly what was retired; a counter another user takes
mid-run is reported invalid, never as a count; a second serve of the core
is refused (125); a SIGKILLed serve is undone by `pmustat reset` bit for bit.

Every server runs on 127.0.0.1 on a free port, with its own temporary
directory, bounded in time and killed at the end; never the system's
services. Without the Debian package a part needs: exit 77 and the
command that installs it."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

MODE = sys.argv[1]
PMUSTAT, RUN_UNDER_EMU, WORKLOAD = map(os.path.abspath, sys.argv[2:5])
PMU_EMU, LIBPMUEMU = (map(os.path.abspath, sys.argv[5:7])) if len(sys.argv) > 6 else (None, None)
CORE = max(os.sched_getaffinity(0))
SKIP = 77
INSTALL = "apt-get install -y prometheus prometheus-node-exporter"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def need(program):
    path = shutil.which(program) or (os.path.exists("/usr/bin/" + program) and "/usr/bin/" + program)
    if not path:
        print(f"SKIP: {program} is not installed ({INSTALL})")
        sys.exit(SKIP)
    return path


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(url, headers=None, timeout=10):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def wait_http(url, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            return http_get(url, timeout=2)
        except OSError:
            time.sleep(0.2)
    return None


def emu_pmustat(args, command=None, cpus=None):
    """pmustat ARGS [-- COMMAND] on a fresh emulated Skylake: (status, stdout, stderr)."""
    argv = [RUN_UNDER_EMU, "--model", "skylake", "--cpus", str(cpus or CORE + 1), "--", PMUSTAT] + args
    if command:
        argv += ["--"] + command
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def samples(text):
    """{(name, frozenset(labels)): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if not check(m, f"a sample line: {line!r}"):
            continue
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def find(smp, family, **labels):
    return [v for (n, ls), v in smp.items() if n == family and all((k, str(x)) in ls for k, x in labels.items())]


def promtool_clean(text, what):
    promtool = need("promtool")
    p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(),
          f"{what}: promtool check metrics: rc {p.returncode} {p.stdout}{p.stderr}")


def perf_software_ok():
    p = subprocess.run([PMUSTAT, "--backend", "perf", "-e", "task-clock", "-x", ",", "--", "true"],
                       capture_output=True, text=True, timeout=60)
    return p.returncode == 0 and "<not" not in p.stderr


def test_promtool():
    workload = [WORKLOAD, "--quiet", "--retire", "0xc0:0:1000"]
    events = "INST_RETIRED.ANY,instructions:k,task-clock,page-faults"
    modes = {
        "one core": (["-C", str(CORE), "--output-format", "prometheus", "-e", events], workload, None),
        "-r 3": (["-C", str(CORE), "-r", "3", "--output-format", "prometheus", "-e", events], workload, None),
        "-A two cores": (["-C", "0-1", "-A", "--output-format", "prometheus", "-e", "INST_RETIRED.ANY",
                          ], [WORKLOAD, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000"], 2),
        "no command": (["-C", str(CORE), "--duration", "100ms", "--output-format", "prometheus",
                        "-e", "INST_RETIRED.ANY"], None, None),
        "metrics": (["-C", str(CORE), "--output-format", "prometheus", "-M", "Info_Thread_IPC"], workload, None),
        "default set": (["-C", str(CORE), "--output-format", "prometheus"], workload, None),
    }
    for what, (args, command, cpus) in modes.items():
        rc, out, err = emu_pmustat(args, command, cpus)
        if not check(rc == 0, f"{what}: exit {rc}: {err[-400:]}"):
            continue
        promtool_clean(err, what)
        smp = samples(err)
        if what in ("one core", "-r 3"):
            want = 3000 if what == "-r 3" else 1000
            check(find(smp, "pmustat_inst_retired_any_total", event="INST_RETIRED.ANY", mode="u",
                       backend="msr") == [want], f"{what}: INST_RETIRED.ANY total {want}: {err[:600]}")
            check(find(smp, "pmustat_event_valid", name="pmustat_inst_retired_any_total", reason="counted") == [1],
                  f"{what}: its validity gauge")
        if what == "-r 3":
            check(find(smp, "pmustat_run_median", name="pmustat_inst_retired_any_total") == [1000],
                  "-r 3: the median run as a gauge")
        if what == "-A two cores":
            check(sorted(find(smp, "pmustat_inst_retired_any_total", pmu="cpu")) == [1000, 1000] and
                  find(smp, "pmustat_inst_retired_any_total", cpu=0) and
                  find(smp, "pmustat_inst_retired_any_total", cpu=1), f"-A: one series per core: {err[:800]}")
        if what == "metrics":
            check(find(smp, "pmustat_metric", metric="Info_Thread_IPC") or
                  find(smp, "pmustat_metric_valid", metric="Info_Thread_IPC"), "-M: the metric's gauge")
    if perf_software_ok():
        p = subprocess.run([PMUSTAT, "--backend", "perf", "--output-format", "openmetrics", "-e",
                            "task-clock,page-faults", "--", "true"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and p.stderr.rstrip().endswith("# EOF"), f"openmetrics ends with # EOF: {p.stderr[-300:]}")
        p = subprocess.run([PMUSTAT, "--backend", "perf", "--output-format", "prometheus", "-e",
                            "task-clock,page-faults", "--", "true"], capture_output=True, text=True, timeout=60)
        promtool_clean(p.stderr, "perf backend, software events")
        check(find(samples(p.stderr), "pmustat_page_faults_total", backend="perf", command="true"),
              "perf backend: page faults with the command label")
    # A machine without a PMU: the hardware rows are not supported, said by the gauge, never a zero.
    p = subprocess.run([RUN_UNDER_EMU, "--model", "nopmu", "--cpus", str(CORE + 1), "--", PMUSTAT,
                        "-C", str(CORE), "--output-format", "prometheus", "--", WORKLOAD, "--quiet"],
                       capture_output=True, text=True, timeout=120)
    if check(p.returncode == 0, f"nopmu: exit {p.returncode}: {p.stderr[-300:]}"):
        promtool_clean(p.stderr, "not supported rows")
        smp = samples(p.stderr)
        check(not find(smp, "pmustat_instructions_total") and
              find(smp, "pmustat_event_valid", name="pmustat_instructions_total", reason="not supported") == [0],
              f"not supported: no counter sample, validity 0: {p.stderr[:1500]}")


def test_textfile():
    exporter = need("prometheus-node-exporter")
    with tempfile.TemporaryDirectory(prefix="pmustat-textfile-") as d:
        rc, out, err = emu_pmustat(["-C", str(CORE), "--textfile", d, "--textfile-name", "job_a", "-e",
                                    "INST_RETIRED.ANY"], [WORKLOAD, "--quiet", "--retire", "0xc0:0:4321"])
        check(rc == 0, f"--textfile run: exit {rc}: {err[-300:]}")
        check(os.listdir(d) == ["pmustat-job_a.prom"], f"only the file, no temporary left: {os.listdir(d)}")
        text = open(os.path.join(d, "pmustat-job_a.prom")).read()
        promtool_clean(text, "--textfile")
        check(not re.search(r"\} \S+ \d+$", text, re.M), "no timestamps")
        port = free_port()
        srv = subprocess.Popen([exporter, "--web.listen-address", f"127.0.0.1:{port}",
                                "--collector.disable-defaults", "--collector.textfile",
                                "--collector.textfile.directory", d],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            got = wait_http(f"http://127.0.0.1:{port}/metrics")
            if check(got is not None, "node_exporter answers"):
                smp = samples(got[2])
                check(find(smp, "pmustat_inst_retired_any_total", event="INST_RETIRED.ANY", mode="u") == [4321],
                      "node_exporter serves the --textfile run's count")
                check(find(smp, "node_textfile_scrape_error") == [0], "node_exporter read the file without error")
        finally:
            srv.kill()
            srv.wait(timeout=10)


class Serve:
    """pmustat serve ARGS on 127.0.0.1, a free port; killed (SIGTERM) at the end."""

    def __init__(self, args, env=None):
        self.p = subprocess.Popen([PMUSTAT, "serve", "--listen", "127.0.0.1:0"] + args, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = self.p.stderr.readline()
        m = re.search(r"http://(\S+)/metrics", line)
        self.addr = m.group(1) if m else None
        check(self.addr, f"serve says where it listens: {line!r}")

    def metrics(self, headers=None):
        return http_get(f"http://{self.addr}/metrics", headers)

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def stop(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            rest = self.p.stderr.read()
            return self.p.wait(timeout=20), rest
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None, ""


class Prometheus:
    """Debian's prometheus on 127.0.0.1, a free port, its own storage, scraping @target every second."""

    def __init__(self, target, tmp, node=None):
        port = free_port()
        # instance = the host, for both jobs (the README's scrape config), so they join on it.
        relabel = ("    relabel_configs:\n      - source_labels: [__address__]\n"
                   "        regex: '([^:]+):\\d+'\n        target_label: instance\n")
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: pmustat\n"
                    f"    static_configs:\n      - targets: ['{target}']\n" + relabel)
            if node:
                f.write(f"  - job_name: node\n    static_configs:\n      - targets: ['{node}']\n" + relabel)
        self.url = f"http://127.0.0.1:{port}"
        self.p = subprocess.Popen([need("prometheus"), "--config.file", os.path.join(tmp, "prometheus.yml"),
                                   "--storage.tsdb.path", os.path.join(tmp, "data"),
                                   "--web.listen-address", f"127.0.0.1:{port}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def query(self, q):
        try:
            _, _, body = http_get(f"{self.url}/api/v1/query?query={urllib.parse.quote(q)}", timeout=5)
        except OSError:
            return []
        return json.loads(body)["data"]["result"]

    def series(self, q, until, seconds=45):
        """The first result of range query @q once until(values) holds: (labels, values)."""
        end = time.time() + seconds
        metric, values = {}, []
        while time.time() < end:
            res = self.query(q)
            if res:
                metric, values = res[0]["metric"], [float(v) for _, v in res[0]["values"]]
                if until(values):
                    break
            time.sleep(0.5)
        return metric, values

    def stop(self):
        self.p.kill()
        self.p.wait(timeout=10)


def test_emu_serve():
    need("prometheus")
    with tempfile.TemporaryDirectory(prefix="pmustat-emu-serve-") as d:
        st = os.path.join(d, "state")
        subprocess.run([PMU_EMU, "init", "--model", "skylake", "--cpus", str(CORE + 1), st], check=True)
        subprocess.run([PMU_EMU, "save", st, os.path.join(d, "before")], check=True)
        emu = [RUN_UNDER_EMU, "--state", st, "--"]
        # Not through run-under-emu (a shell, which would take the signals): its environment, directly.
        env = dict(os.environ, LD_PRELOAD=LIBPMUEMU, PMUSTAT_EMU_STATE=st,
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
        serve = Serve(["--backend", "msr", "-C", str(CORE), "-e", "INST_RETIRED.ANY,LLC_MISSES,cycles"], env=env)
        if not serve.addr:
            return
        # node_exporter's node_cpu_info (this host's sockets) for the README's per-socket sums.
        node_port = free_port()
        node = subprocess.Popen([need("prometheus-node-exporter"), "--web.listen-address", f"127.0.0.1:{node_port}",
                                 "--collector.disable-defaults", "--collector.cpu", "--collector.cpu.info"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        prom = Prometheus(serve.addr, d, node=f"127.0.0.1:{node_port}")
        try:
            q = f'pmustat_inst_retired_any_total{{cpu="{CORE}"}}[5m]'
            metric, values = prom.series(q, lambda v: len(v) >= 1)
            check(values and values[-1] == 0, f"the first scrape: nothing retired yet: {values}")
            subprocess.run([PMU_EMU, "retire", st, str(CORE), "0xc0:0:1000"], check=True)
            metric, values = prom.series(q, lambda v: v and v[-1] >= 1000)
            subprocess.run([PMU_EMU, "retire", st, str(CORE), "0xc0:0:2345"], check=True)
            metric, values = prom.series(q, lambda v: v and v[-1] >= 3345)
            steps = sorted(set(values))
            check(steps == [0, 1000, 3345], f"Prometheus stored exactly what was retired: {values}")
            check(metric.get("event") == "INST_RETIRED.ANY" and metric.get("backend") == "msr" and
                  metric.get("pmu") == "cpu" and metric.get("mode") == "u", f"the labels: {metric}")
            # Hostile requests touch neither the counters nor the PMU (the diff after SIGINT below).
            raw(serve.addr, b"GARBAGE \x00\xff\r\n\r\n")
            raw(serve.addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n")
            raw(serve.addr, b"GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            check(find(samples(serve.metrics()[2]), "pmustat_inst_retired_any_total") == [3345],
                  "the count after hostile requests")
            inc = prom.query(f'increase(pmustat_inst_retired_any_total{{cpu="{CORE}"}}[5m])')
            check(inc != [], "increase() over the stored counter")
            # The README's PromQL: IPC, and per socket (node_cpu_info's package), from the stored counters.
            subprocess.run([PMU_EMU, "retire", st, str(CORE), "0x3c:0:6690"], check=True)
            prom.series(f'pmustat_cycles_total{{cpu="{CORE}"}}[5m]', lambda v: v and v[-1] >= 6690)
            ipc = prom.query("rate(pmustat_inst_retired_any_total[1m]) / ignoring(event) rate(pmustat_cycles_total[1m])")
            check(ipc and float(ipc[0]["value"][1]) == 0.5, f"IPC through PromQL: 3345 / 6690: {ipc}")
            end, per_socket = time.time() + 20, []
            while time.time() < end and not per_socket:
                per_socket = prom.query(
                    "sum by (instance, package) (rate(pmustat_inst_retired_any_total[1m]) * on (instance, cpu)"
                    " group_left(package) node_cpu_info) / sum by (instance, package) (rate(pmustat_cycles_total[1m])"
                    " * on (instance, cpu) group_left(package) node_cpu_info)")
                time.sleep(0.5)
            check(per_socket and "package" in per_socket[0]["metric"] and float(per_socket[0]["value"][1]) == 0.5,
                  f"per-socket IPC through node_cpu_info: {per_socket}")
            # A second serve of the core: refused.
            p = subprocess.run(emu + [PMUSTAT, "serve", "--backend", "msr", "-C", str(CORE), "--listen",
                                      "127.0.0.1:0", "-e", "INST_RETIRED.ANY"], capture_output=True, text=True, timeout=60)
            check(p.returncode == 125 and "in use" in p.stderr, f"a second serve of the core: 125: {p.stderr[-300:]}")
        finally:
            prom.stop()
            node.kill()
            node.wait(timeout=10)
            rc, rest = serve.stop(signal.SIGINT)
            check(rc == 0, f"SIGINT stops serve cleanly: {rc} {rest[-300:]}")
        subprocess.run([PMU_EMU, "save", st, os.path.join(d, "after-int")], check=True)
        d1 = subprocess.run([PMU_EMU, "diff", os.path.join(d, "before"), os.path.join(d, "after-int")],
                            capture_output=True, text=True)
        check(d1.returncode == 0, f"restored after SIGINT: {d1.stdout}")
        # Another user takes fixed counter 0 mid-run: invalid from then on, no counter sample; left to them.
        serve = Serve(["--backend", "msr", "-C", str(CORE), "-e", "INST_RETIRED.ANY,LLC_MISSES"], env=env)
        try:
            # Another user takes fixed counter 0: invalid from then on, no counter sample.
            fixed_ctrl = subprocess.run([PMU_EMU, "get", st, str(CORE), "0x38d"], capture_output=True, text=True).stdout
            subprocess.run([PMU_EMU, "act", st, str(CORE), "wrmsr:0x38d=0x3"], check=True)
            smp = samples(serve.metrics()[2])
            check(not find(smp, "pmustat_inst_retired_any_total") and
                  find(smp, "pmustat_event_valid", name="pmustat_inst_retired_any_total",
                       reason="not counted: counter taken by another user") == [0] and
                  find(smp, "pmustat_event_valid", name="pmustat_llc_misses_total", reason="counted") == [1],
                  f"a counter taken mid-run is invalid (FIXED_CTR_CTRL was {fixed_ctrl.strip()})")
            subprocess.run([PMU_EMU, "act", st, str(CORE), f"wrmsr:0x38d={fixed_ctrl.strip()}"], check=True)
            smp = samples(serve.metrics()[2])
            check(not find(smp, "pmustat_inst_retired_any_total"), "once taken, never counted again")
        finally:
            rc, rest = serve.stop(signal.SIGTERM)
            check(rc == 0, f"SIGTERM stops serve cleanly: {rc} {rest[-300:]}")
        subprocess.run([PMU_EMU, "save", st, os.path.join(d, "after-taken")], check=True)
        d1 = subprocess.run([PMU_EMU, "diff", os.path.join(d, "before"), os.path.join(d, "after-taken")],
                            capture_output=True, text=True)
        changed = set(re.findall(r"\((0x[0-9a-f]+)\)", d1.stdout))
        check(changed <= {"0x309", "0x38d", "0x38f", "0x392"},
              f"only the taken counter's registers differ (the other user's now): {d1.stdout}")
        subprocess.run([PMU_EMU, "init", "--model", "skylake", "--cpus", str(CORE + 1), st], check=True)
        subprocess.run([PMU_EMU, "save", st, os.path.join(d, "before")], check=True)
        # SIGKILL: nothing restored by serve itself; pmustat reset does it from the journal, bit for bit.
        serve = Serve(["--backend", "msr", "-C", str(CORE), "-e", "INST_RETIRED.ANY,LLC_MISSES", "-M",
                       "Info_Thread_IPC"], env=env)
        serve.metrics()
        subprocess.run([PMU_EMU, "retire", st, str(CORE), "0xc0:0:77"], check=True)
        subprocess.run([PMU_EMU, "retire", st, str(CORE), "0x3c:0:154"], check=True)
        text = serve.metrics()[2]
        promtool_clean(text, "serve with -M")
        check(find(samples(text), "pmustat_inst_retired_any_total") == [77], "counting again")
        check(find(samples(text), "pmustat_metric", metric="Info_Thread_IPC") == [0.5],
              f"-M: the metric from the counts so far, 77 / 154: {text}")
        rc, _ = serve.stop(signal.SIGKILL)
        p = subprocess.run(emu + [PMUSTAT, "reset"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f"pmustat reset: {p.returncode} {p.stderr[-300:]}")
        subprocess.run([PMU_EMU, "save", st, os.path.join(d, "after-kill")], check=True)
        d2 = subprocess.run([PMU_EMU, "diff", os.path.join(d, "before"), os.path.join(d, "after-kill")],
                            capture_output=True, text=True)
        check(d2.returncode == 0, f"a SIGKILLed serve undone by pmustat reset bit for bit: {d2.stdout}")


def test_prometheus():
    need("prometheus")
    if not perf_software_ok():
        print("SKIP: perf_event_open is refused here (seccomp, perf_event_paranoid): pmustat serve counts nothing")
        sys.exit(SKIP)
    serve = Serve(["-C", str(CORE), "-e", "task-clock,page-faults,context-switches"])
    if not serve.addr:
        return
    try:
        p = subprocess.run([PMUSTAT, "serve", "-C", str(CORE), "--listen", "127.0.0.1:0", "-e", "task-clock"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 125 and "another pmustat serve" in p.stderr,
              f"a second serve of the core: 125: {p.stderr[-300:]}")
        st, ctype, text = serve.metrics({"Accept": "application/openmetrics-text; version=1.0.0"})
        check(st == 200 and ctype.startswith("application/openmetrics-text") and text.endswith("# EOF\n"),
              f"OpenMetrics negotiated: {ctype}")
        st, ctype, text = serve.metrics()
        check(ctype.startswith("text/plain; version=0.0.4"), f"Prometheus text by default: {ctype}")
        promtool_clean(text, "serve's scrape")
        with tempfile.TemporaryDirectory(prefix="pmustat-prometheus-") as d:
            prom = Prometheus(serve.addr, d)
            try:
                metric, values = prom.series(f'pmustat_task_clock_seconds_total{{cpu="{CORE}"}}[1m]',
                                             lambda v: len(v) >= 2)
                if check(len(values) >= 2, "Prometheus stored two scrapes of pmustat serve"):
                    check(metric.get("event") == "task-clock" and metric.get("backend") == "perf" and
                          metric.get("pmu") == "software" and metric.get("job") == "pmustat",
                          f"the labels arrived: {metric}")
                    check(all(b > a for a, b in zip(values, values[1:])), f"the counter increases: {values}")
                up = prom.query("up")
                check(up and up[0]["value"][1] == "1", "the target is up")
                # Prometheus asked for OpenMetrics and parsed it: the family's unit came from # UNIT.
                _, _, body = http_get(f"{prom.url}/api/v1/targets/metadata", timeout=5)
                meta = {m["metric"]: m for m in json.loads(body)["data"]}
                check(meta.get("pmustat_task_clock_seconds", {}).get("unit") == "seconds" and
                      meta["pmustat_task_clock_seconds"]["type"] == "counter",
                      f"scraped as OpenMetrics (# UNIT seconds): {sorted(meta)}")
            finally:
                prom.stop()
    finally:
        rc, rest = serve.stop(signal.SIGHUP)
        check(rc == 0, f"SIGHUP stops serve cleanly: {rc} {rest[-300:]}")


def raw(addr, data, read=True, timeout=5):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=timeout)
    try:
        s.sendall(data)
        if not read:
            return s
        got = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            got += chunk
        return got
    finally:
        if read:
            s.close()


def test_hostile():
    if not perf_software_ok():
        print("SKIP: perf_event_open is refused here: pmustat serve counts nothing")
        sys.exit(SKIP)
    # Usage: refused before anything is counted.
    for args, says in ((["-C", "0", "--listen", "localhost:80"], "numeric ADDR:PORT"),
                       (["-e", "task-clock"], "-C LIST, -a or -p PID"),
                       (["-C", "0", "--", "true"], "not a COMMAND"),
                       (["-p", "1", "--backend", "msr"], "MSR backend counts cores")):
        p = subprocess.run([PMUSTAT, "serve"] + args, capture_output=True, text=True, timeout=30)
        check(p.returncode == 125 and says in p.stderr, f"serve {args}: 125, '{says}': {p.returncode} {p.stderr}")
    # A process of its own (-p): the other tests' serves claim cores.
    busy = subprocess.Popen(["sh", "-c", "while :; do sleep 0.05; done"])
    serve = Serve(["-p", str(busy.pid), "-e", "task-clock,context-switches"])
    if not serve.addr:
        busy.kill()
        return

    def total():
        return find(samples(serve.metrics()[2]), "pmustat_task_clock_seconds_total")[0]

    try:
        before, rss0 = total(), serve.rss_kib()
        t0 = time.time()
        got = raw(serve.addr, b"GARBAGE \x00\xff\r\n\r\n")
        check(got == b"" or got.startswith(b"HTTP/1.1 4"), f"malformed request refused: {got[:80]!r}")
        got = raw(serve.addr, b"GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        check(got.startswith(b"HTTP/1.1 404"), f"another path: 404: {got[:80]!r}")
        got = raw(serve.addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n")
        check(got == b"" or re.match(rb"HTTP/1.1 4\d\d", got), f"a large request refused: {got[:80]!r}")
        got = raw(serve.addr, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        check(got.startswith(b"HTTP/1.1 405"), f"POST: 405: {got[:80]!r}")
        check(time.time() - t0 < 20, "answered or dropped in bounded time")
        # A slow client (half a request line) does not hold the others up.
        slow = raw(serve.addr, b"GET /met", read=False)
        t1 = time.time()
        mid = total()
        check(time.time() - t1 < 2, "a scrape beside a slow client is answered at once")
        slow.close()
        # 1,000 connections at once: each answered, refused or dropped; serving goes on after.
        conns = []
        for _ in range(1000):
            try:
                conns.append(raw(serve.addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n", read=False, timeout=2))
            except OSError:
                pass
        for c in conns:
            c.close()
        end = time.time() + 30
        after = None
        while time.time() < end and after is None:
            try:
                after = total()
            except OSError:
                time.sleep(0.5)
        check(after is not None, "serving after 1,000 connections")
        check(after is not None and before <= mid <= after, f"the counter never reset: {before} {mid} {after}")
        check(serve.rss_kib() - rss0 < 16 * 1024, f"memory bounded: {rss0} -> {serve.rss_kib()} KiB")
    finally:
        rc, rest = serve.stop()
        busy.kill()
        busy.wait()
        check(rc == 0, f"SIGTERM stops serve cleanly: {rc} {rest[-300:]}")


{"promtool": test_promtool, "textfile": test_textfile, "prometheus": test_prometheus,
 "hostile": test_hostile, "emu-serve": test_emu_serve}[MODE]()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
