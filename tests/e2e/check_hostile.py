#!/usr/bin/env python3
"""check_hostile.py PMUSTAT LIBPMUEMU PMU_EMU SANITIZE CPU_DUMP_REGRESSIONS

A table of hostile inputs: every entry point of the real binary
(-e, -C, -o, the command, info --cpu-dump / --save-cpu-dump, list --table /
--cpu-dump, argument counts and sizes) fed something absurd or malicious.
Each row asserts the exit status (125 for a pmustat failure), a message on
stderr naming the problem, a bounded run time and memory (RLIMIT_AS 1 GiB,
unless SANITIZE is not 'none': ASan reserves terabytes of address space;
peak RSS is asserted in every build), no file written where it must not be,
and, for rows that run under the emulated PMU, a PMU state identical bit
for bit before and after (pmu-emu save/diff).

Rows pmustat fails today in a file this test's owner may not change carry
`known=...` naming the problem and the file: they still run (bounded), are
reported as XFAIL, or XPASS once fixed, and do not fail the test.
"""

import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import time

pmustat, lib, pmu_emu = (os.path.abspath(p) for p in sys.argv[1:4])
sanitized = sys.argv[4] not in ("", "none")
regressions = os.path.abspath(sys.argv[5])

TIME_LIMIT = 30.0 if sanitized else 5.0   # seconds per run
MEM_LIMIT = 1 << 30                       # RLIMIT_AS and peak RSS
ARG_MAX_CHUNK = 128 * 1024 - 1            # Linux: one argv string < 128 KiB

failures = []
xfails = []
xpasses = []
ran = 0


def limits():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Room for the largest argument list Linux accepts (a quarter of the stack, at most 6 MB).
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if hard == resource.RLIM_INFINITY or hard >= (32 << 20):
        resource.setrlimit(resource.RLIMIT_STACK, (32 << 20, hard))
    if not sanitized:
        resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


def run(argv, env, tmp):
    """(status as a shell reports it, stderr text, seconds, peak RSS bytes)"""
    out = open(os.path.join(tmp, "stdout"), "w+b")
    err = open(os.path.join(tmp, "stderr"), "w+b")
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                         preexec_fn=limits)
    deadline = t0 + TIME_LIMIT
    killed = False
    while True:
        pid, ws, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline and not killed:
            os.kill(p.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.005)
    p.returncode = 0   # reaped here; keep Popen from waiting again
    secs = time.monotonic() - t0
    status = 128 + os.WTERMSIG(ws) if os.WIFSIGNALED(ws) else os.WEXITSTATUS(ws)
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    out.close()
    err.close()
    return status, text, secs, ru.ru_maxrss * 1024, killed


def emu_env(state):
    asan = os.environ.get("ASAN_OPTIONS", "")
    return dict(os.environ, LD_PRELOAD=lib, PMUSTAT_EMU_STATE=state,
                ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")


def case(name, args, expect=125, says=(), emu=True, after=None, known=None, env_set=None):
    """One row: pmustat ARGS... must exit EXPECT with every SAYS in stderr.
    ENV_SET: variables set (a value None: unset) for this run."""
    global ran
    ran += 1
    problems = []
    with tempfile.TemporaryDirectory(prefix="pmustat-hostile-") as tmp:
        fx = fixtures(tmp)
        argv = [pmustat] + [a(fx) if callable(a) else a for a in args]
        env = dict(os.environ)
        env.pop("SUDO_UID", None)
        env.pop("SUDO_GID", None)
        if emu:
            state = os.path.join(tmp, "state")
            subprocess.run([pmu_emu, "init", "--model", "skylake", "--cpus", "2", state],
                           check=True)
            subprocess.run([pmu_emu, "save", state, os.path.join(tmp, "before")], check=True)
            env = emu_env(state)
        for k, v in (env_set or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        status, text, secs, rss, killed = run(argv, env, tmp)
        if killed:
            problems.append("did not finish in %.0f s (killed)" % TIME_LIMIT)
        elif status != expect:
            problems.append("exit %d, want %d" % (status, expect))
        if not text.strip():
            problems.append("nothing on stderr")
        for s in says:
            if s not in text:
                problems.append("stderr lacks %r" % s)
        if rss > MEM_LIMIT:
            problems.append("peak RSS %d MiB" % (rss >> 20))
        if emu:
            subprocess.run([pmu_emu, "save", state, os.path.join(tmp, "after")], check=True)
            d = subprocess.run([pmu_emu, "diff", os.path.join(tmp, "before"),
                                os.path.join(tmp, "after")], capture_output=True, text=True)
            if d.returncode != 0:
                problems.append("PMU state changed: " + d.stdout.strip()[:300])
        if after:
            problems += after(fx)
    label = "%s (%.2f s, %d MiB)" % (name, secs, rss >> 20)
    if known:
        (xpasses if not problems else xfails).append((label, known, problems))
        print("%s %s" % ("XPASS" if not problems else "XFAIL", label))
    elif problems:
        failures.append((label, problems, text[:400]))
        print("FAIL  %s: %s" % (label, "; ".join(problems)))
    else:
        print("ok    %s" % label)


def fixtures(tmp):
    """Files every row may point at."""
    fx = {"tmp": tmp}
    fx["victim"] = os.path.join(tmp, "victim")
    with open(fx["victim"], "w") as f:
        f.write("root's file\n")
    fx["link"] = os.path.join(tmp, "link")
    os.symlink(fx["victim"], fx["link"])
    fx["dangling"] = os.path.join(tmp, "dangling")
    os.symlink(os.path.join(tmp, "created-through-a-link"), fx["dangling"])
    # Links are planted by somebody else (nobody), as in a shared /tmp.
    if os.geteuid() == 0:
        for link in (fx["link"], fx["dangling"]):
            os.lchown(link, 65534, 65534)
    fx["fifo"] = os.path.join(tmp, "fifo")
    os.mkfifo(fx["fifo"])
    fx["huge"] = os.path.join(tmp, "huge")
    with open(fx["huge"], "wb") as f:
        f.truncate(1 << 30)        # 1 GB, sparse
    fx["empty"] = os.path.join(tmp, "empty")
    open(fx["empty"], "w").close()
    fx["binary"] = os.path.join(tmp, "binary")
    with open(fx["binary"], "wb") as f:
        f.write(bytes(range(256)) * 64)
    fx["secret"] = os.path.join(tmp, "secret")
    with open(fx["secret"], "w") as f:
        f.write("TOPSECRET:$6$hash:19000:0:99999:7:::\n")
    fx["secret_link"] = os.path.join(tmp, "secret-link")
    os.symlink(fx["secret"], fx["secret_link"])
    if os.geteuid() == 0:
        os.lchown(fx["secret_link"], 65534, 65534)
    fx["dir"] = os.path.join(tmp, "dir")
    os.mkdir(fx["dir"])
    return fx


def victim_intact(fx):
    with open(fx["victim"]) as f:
        return [] if f.read() == "root's file\n" else ["the symlink's target was written"]


def nothing_created(fx):
    bad = os.path.join(fx["tmp"], "created-through-a-link")
    return ["a file was created through a dangling symlink"] if os.path.exists(bad) else []


def chunks(total, fill="A"):
    """-e options of at most 128 KiB each adding up to @total bytes."""
    args = []
    while total > 0:
        n = min(total, ARG_MAX_CHUNK)
        args += ["-e", fill * n]
        total -= n
    return args


def many_events(n):
    """n distinct raw events (cmask varies above 16 bits), as -e options of < 128 KiB."""
    evs = ["r%x" % ((i & 0xffff) | ((i >> 16) << 24) | 0x10000) for i in range(1, n + 1)]
    args, cur, size = [], [], 0
    for e in evs:
        if size + len(e) + 1 > 120000:
            args += ["-e", ",".join(cur)]
            cur, size = [], 0
        cur.append(e)
        size += len(e) + 1
    return args + ["-e", ",".join(cur)]


C0 = ["-C", "0"]

# --- stat mode: -e, the event specification -----------------------------------
case("-e format directives are text", C0 + ["-e", "%n%s%n%s%x", "true"],
     says=["unknown event '%n%s%n%s%x'"])
case("-e 128 KiB argument", C0 + ["-e", "A" * ARG_MAX_CHUNK, "true"], says=["too long"])
# Linux caps a process's arguments at 6 MB (3/4 of _STK_LIM) whatever the stack
# limit, so "10 MB arguments" means as much as execve() lets through.
case("-e 5 MB of arguments", C0 + chunks(5 << 20) + ["true"], says=["too long"])
case("-e 65 options", C0 + ["-e", "cycles"] * 65 + ["true"], says=["at most 64 -e options"])
case("-e 100000 options", C0 + ["-e", "cycles"] * 100000 + ["true"], says=["at most 64 -e options"])
case("-e 100000 distinct events", C0 + many_events(100000) + ["true"],
     says=["too many events: at most 256"])
case("-e 200 distinct events", C0 + many_events(200) + ["true"], says=["at most 64"])
case("-e cpu// with 30000 parameters", C0 + ["-e", "cpu/" + "inv," * 30000 + "event=1/", "true"],
     says=["too long"])
case("-e empty item", C0 + ["-e", "cycles,,instructions", "true"], says=["empty event name"])
case("-e empty", C0 + ["-e", "", "true"], says=["empty event list"])
case("-e 17 hex digits", C0 + ["-e", "r" + "F" * 17, "true"], says=["more than 16 hex digits"])
case("-e event=0x100", C0 + ["-e", "cpu/event=0x100/", "true"], says=["from 0 to 0xff"])
case("-e cmask=-1", C0 + ["-e", "INST_RETIRED.ANY:cmask=-1", "true"], says=["cmask must be a number"])
case("-e uncore PMU", C0 + ["-e", "uncore_imc/cas_count_read/", "true"], says=["only the core PMU"])
case("-e INT bit", C0 + ["-e", "r10003c", "true"], says=["INT (bit 20)"])

# --- stat mode: -C and the rest of the command line -------------------------------
for bad in ("-1", "99999999999999999999", "1024", "", "0x1", "1e3", "1 "):
    case("-C %r" % bad, ["-C", bad, "-e", "cycles", "true"], says=["not a CPU number"])
case("-C a CPU not in the machine", ["-C", "5", "-e", "cycles", "true"], says=["core 5"])
case("no command", ["-e", "cycles"], says=["no command given"])
case("--duration without cores", ["--duration", "1s", "-e", "cycles"], says=["-C LIST, -a or -p PID"])
case("--duration 0", C0 + ["--duration", "0", "-e", "cycles"], says=["--duration 0"])
case("-p not a number", ["-p", "12x", "-e", "cycles"], says=["-p 12x"])
case("unknown option", ["--no-such-option", "true"], says=["unknown option"])
case("-x and --json", C0 + ["-x", ",", "--json", "true"], says=["exclude each other"])

# --- stat mode: -o, a file pmustat creates as root --------------------------------
# pmustat follows its own user's links (/dev/stdout); planting one as another
# user needs root.
if os.geteuid() == 0:
    case("-o another user's symlink", C0 + ["-o", lambda fx: fx["link"], "-e", "cycles", "true"],
         says=["symbolic link"], after=victim_intact)
    case("-o another user's dangling symlink", C0 + ["-o", lambda fx: fx["dangling"], "-e", "cycles",
                                                     "true"],
         says=["symbolic link"], after=nothing_created)
else:
    print("skip  -o symlinks of another user: not root, cannot plant one")
case("-o a directory", C0 + ["-o", lambda fx: fx["dir"], "-e", "cycles", "true"],
     says=["cannot write"])
case("-o in a missing directory", C0 + ["-o", lambda fx: fx["tmp"] + "/no/such/file", "-e",
                                         "cycles", "true"], says=["cannot write"])

case("-o /dev/full", C0 + ["-o", "/dev/full", "-e", "cycles", "true"], says=["-o /dev/full: cannot write"])
case("-x empty separator", C0 + ["-x", "", "-e", "cycles", "true"], says=["separator"])
case("-x quote separator", C0 + ["-x", '"', "-e", "cycles", "true"], says=["separator"])
case("-x newline separator", C0 + ["-x", "\n", "-e", "cycles", "true"], says=["separator"])

# --- SUDO_UID / SUDO_GID: who the command runs as; never a guess, never root ------
# As root, a value that is not a plain decimal id of an existing user must
# stop pmustat (the command never runs as root by mistake). Not as root,
# pmustat ignores them: it acts as its own user anyway.
def never_ran(fx):
    return ["the command ran"] if os.path.exists(os.path.join(fx["tmp"], "ran")) else []


def ran_command():
    return ["sh", "-c", lambda fx: "touch " + fx["tmp"] + "/ran"]


if os.geteuid() == 0:
    for bad in ("abc", "", "65534x", "0x3e8", "99999999999999999999", "4294967296", "4294967295",
                "-1", "+65534", " 65534", "065534", "65534 ", "1e3"):
        case("SUDO_UID=%r" % bad, C0 + ["-e", "cycles"] + ran_command(),
             env_set={"SUDO_UID": bad, "SUDO_GID": "65534"}, says=["SUDO_UID"], after=never_ran)
    case("SUDO_UID of no user", C0 + ["-e", "cycles"] + ran_command(),
         env_set={"SUDO_UID": "4000000000", "SUDO_GID": "65534"}, says=["SUDO_UID=4000000000: no such user"],
         after=never_ran)
    for bad in ("abc", "", "-1", "4294967296"):
        case("SUDO_GID=%r" % bad, C0 + ["-e", "cycles"] + ran_command(),
             env_set={"SUDO_UID": "65534", "SUDO_GID": bad}, says=["SUDO_GID"], after=never_ran)
    case("SUDO_GID of a group the user is not in", C0 + ["-e", "cycles"] + ran_command(),
         env_set={"SUDO_UID": "65534", "SUDO_GID": "0"}, says=["SUDO_GID=0: not a group of user"],
         after=never_ran)
    case("SUDO_UID without SUDO_GID", C0 + ["-e", "cycles"] + ran_command(),
         env_set={"SUDO_UID": "65534", "SUDO_GID": None}, says=["SUDO_GID", "unset"], after=never_ran)
    case("SUDO_GID without SUDO_UID", C0 + ["-e", "cycles"] + ran_command(),
         env_set={"SUDO_UID": None, "SUDO_GID": "65534"}, says=["SUDO_UID", "unset"], after=never_ran)
    case("--save-baseline with a bad SUDO_UID", C0 + ["--save-baseline", lambda fx: fx["tmp"] + "/b.json",
                                                    "-e", "cycles", "true"],
         env_set={"SUDO_UID": "0x3e8", "SUDO_GID": "0"}, says=["SUDO_UID"],
         after=lambda fx: ["the file was written"] if os.path.exists(fx["tmp"] + "/b.json") else [])
else:
    print("skip  SUDO_UID/SUDO_GID rows: they matter only to root")

# --- stat mode: --check, --tolerance, --baseline, --save-baseline ------
case("--check incomplete", C0 + ["--check", "cycles <", "true"], says=["--check", "column"])
case("--check 5000 parentheses", C0 + ["--check", "(" * 5000, "true"], says=["longer than"])
case("--check nesting", C0 + ["--check", "(" * 200 + "1" + ")" * 200 + "<2", "true"], says=["--check"])
case("--check format directives", C0 + ["--check", "%n%s%n < 1 +", "true"], says=["--check"])
case("--tolerance junk", C0 + ["--tolerance", "x=%n", "true"], says=["--tolerance x=%n"])
case("--baseline 1 GB", C0 + ["--baseline", lambda fx: fx["huge"], "-e", "cycles", "true"],
     says=["at most 16 MiB"])
case("--baseline not JSON", C0 + ["--baseline", lambda fx: fx["binary"], "-e", "cycles", "true"],
     says=["not JSON"])
case("--baseline a directory", C0 + ["--baseline", lambda fx: fx["dir"], "-e", "cycles", "true"],
     says=["baseline"])
case("--baseline fifo", C0 + ["--baseline", lambda fx: fx["fifo"], "-e", "cycles", "true"],
     says=["not a regular file"])
case("--baseline symlink, content not echoed",
     C0 + ["--baseline", lambda fx: fx["secret_link"], "-e", "cycles", "true"],
     says=["symbolic link"],
     after=lambda fx: ["a token of the file was echoed"] if "TOPSECRET" in open(
         os.path.join(fx["tmp"], "stderr")).read() else [])
case("--save-baseline symlink", C0 + ["--save-baseline", lambda fx: fx["link"], "-e", "cycles", "true"],
     says=["symbolic link"], after=victim_intact)

# --- state and reset: CPU lists -------------------------------------------------
for sub in ("state", "reset"):
    for bad in ("-1", "99999999999", "0-999999999", "1-0", "0,,1", "%n"):
        case("%s -C %r" % (sub, bad), [sub, "-C", bad], says=["not a CPU list"])
case("state --watch 0", ["state", "--watch", "0"], says=["at least 100"])
case("reset unknown option", ["reset", "--bogus"], says=["unknown option --bogus"])

# --- the command: never a shell ---------------------------------------------------
case("command text is not shell", C0 + ["-e", "cycles", "--",
                                        lambda fx: "true;touch " + fx["tmp"] + "/pwned"],
     expect=127, says=["command not found"],
     after=lambda fx: ["a shell ran the command"] if os.path.exists(fx["tmp"] + "/pwned") else [])

# --- info --cpu-dump / list --cpu-dump: files read as root -----------------------
for sub in ("info", "list"):
    case(sub + " --cpu-dump symlink", [sub, "--cpu-dump", lambda fx: fx["link"]],
         says=["symbolic link"], emu=False)
    case(sub + " --cpu-dump fifo", [sub, "--cpu-dump", lambda fx: fx["fifo"]],
         says=["not a regular file"], emu=False)
    case(sub + " --cpu-dump 1 GB", [sub, "--cpu-dump", lambda fx: fx["huge"]],
         says=["too large"], emu=False)
case("info --cpu-dump /dev/zero", ["info", "--cpu-dump", "/dev/zero"], says=["not a regular file"],
     emu=False)
case("info --cpu-dump a directory", ["info", "--cpu-dump", lambda fx: fx["dir"]],
     says=["not a regular file"], emu=False)
case("info --cpu-dump missing", ["info", "--cpu-dump", lambda fx: fx["tmp"] + "/none"],
     says=["No such file"], emu=False)
case("info --cpu-dump empty", ["info", "--cpu-dump", lambda fx: fx["empty"]],
     says=["could not read any CPUID data"], emu=False)
case("info --cpu-dump binary", ["info", "--cpu-dump", lambda fx: fx["binary"]],
     says=["binary: "], emu=False)
case("info --cpu-dump %n path", ["info", "--cpu-dump", lambda fx: fx["tmp"] + "/%n%s%n"],
     says=["/%n%s%n"], emu=False)
for f in sorted(os.listdir(regressions)) if os.path.isdir(regressions) else []:
    case("info --cpu-dump regression " + f, ["info", "--cpu-dump", os.path.join(regressions, f)],
         says=["not a raw dump"], emu=False)

# --- info --save-cpu-dump: a file written as root --------------------------------
if os.geteuid() == 0:
    case("info --save-cpu-dump symlink", ["info", "-C", "0", "--save-cpu-dump", lambda fx: fx["link"]],
         says=["symbolic link owned by uid 65534"], after=victim_intact)
    case("info --save-cpu-dump dangling symlink",
         ["info", "-C", "0", "--save-cpu-dump", lambda fx: fx["dangling"]],
         says=["symbolic link owned by uid 65534"], after=nothing_created)
case("info --save-cpu-dump a directory",
     ["info", "-C", "0", "--save-cpu-dump", lambda fx: fx["dir"]], says=["Is a directory"])

# --- list --table: a name that becomes a path -----------------------------------
for bad, says in (("../../../etc/passwd", "not a table name"), ("", "not a table name"),
                  (".hidden", "not a table name"), ("skylake/../skylake", "not a table name"),
                  ("a" * 5000, "too long"), ("%n%s%n", "no event table '%n%s%n'")):
    case("list --table %r" % bad[:40], ["list", "--table", bad], says=[says], emu=False)
case("list --table and --cpu-dump", ["list", "--table", "skylake", "--cpu-dump", "x"],
     says=["give one of them"], emu=False)
case("list words too long", ["list", "a" * 600, "b" * 600], says=["the PATTERN is too long"], emu=False)

for label, known, problems in xfails:
    print("XFAIL %s\n      known: %s\n      now: %s" % (label, known, "; ".join(problems)))
for label, known, problems in xpasses:
    print("XPASS %s: passes now; remove its known= mark (%s)" % (label, known))
for label, problems, text in failures:
    print("FAIL  %s\n      %s\n      stderr: %r" % (label, "; ".join(problems), text))
print("check_hostile: %d rows, %d failures, %d known failures, %d fixed since marked"
      % (ran, len(failures), len(xfails), len(xpasses)))
sys.exit(1 if failures else 0)
