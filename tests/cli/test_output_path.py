#!/usr/bin/env python3
"""The files pmustat writes for its user (-o, --save-baseline): opened with
the invoking user's rights, never through a symbolic link somebody else
planted (in any component), an open descriptor (/dev/stdout) written as it is
(appended to under >>, never truncated), a regular file replaced whole or
left as it was, and every failed write exit 125 naming the file.

Counts task-clock (the kernel's software event): no PMU needed."""
import os
import pwd
import subprocess
import sys
import tempfile
import unittest

PMUSTAT = sys.argv.pop(1)
NOBODY = 65534


def run(*args, env=None, **kw):
    e = dict(os.environ)
    e.pop("SUDO_UID", None)
    e.pop("SUDO_GID", None)
    if env:
        e.update(env)
    if "stdout" not in kw:
        kw["stdout"] = subprocess.PIPE
    return subprocess.run([PMUSTAT, *args], stderr=subprocess.PIPE, text=True, timeout=60, env=e, **kw)


def as_nobody():
    return {"SUDO_UID": str(NOBODY), "SUDO_GID": str(NOBODY)}


class OutputPath(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.victim = os.path.join(self.dir.name, "victim")
        with open(self.victim, "w") as f:
            f.write("keep me\n")

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def leftovers(self):
        return [n for n in os.listdir(self.dir.name) if ".pmustat-" in n]

    @unittest.skipUnless(os.geteuid() == 0, "needs root to plant a link owned by another user")
    def test_planted_link_is_refused(self):
        link = self.path("out.json")
        os.symlink(self.victim, link)
        os.lchown(link, NOBODY, NOBODY)
        p = run("-o", link, "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("symbolic link owned by uid 65534", p.stderr)
        with open(self.victim) as f:
            self.assertEqual(f.read(), "keep me\n")

    @unittest.skipUnless(os.geteuid() == 0, "needs root to plant a link owned by another user")
    def test_planted_directory_link_is_refused(self):
        # A world-writable sticky directory (/tmp), where another user made
        # "reports" a link to a directory of root's.
        shared = self.path("shared")
        os.mkdir(shared)
        os.chmod(shared, 0o1777)
        secret_dir = self.path("rootdir")
        os.mkdir(secret_dir, 0o700)
        link = os.path.join(shared, "reports")
        os.symlink(secret_dir, link)
        os.lchown(link, NOBODY, NOBODY)
        p = run("-o", os.path.join(link, "out.json"), "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("reports is a symbolic link owned by uid 65534", p.stderr)
        self.assertEqual(os.listdir(secret_dir), [])

    def test_own_link_is_followed(self):
        link = self.path("mine.json")
        os.symlink(self.victim, link)
        p = run("-o", link, "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.islink(link))
        with open(self.victim) as f:
            self.assertIn('"format_version"', f.read())

    def test_regular_file(self):
        out = self.path("plain.json")
        p = run("-o", out, "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        mask = os.umask(0)
        os.umask(mask)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o666 & ~mask)
        # Replaced whole, keeping the old file's permissions.
        os.chmod(out, 0o600)
        p = run("-o", out, "-x", ",", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o600)
        with open(out) as f:
            self.assertTrue(f.read().endswith(",task-clock,task-clock,-,1,counted,,,,,,,,\n"))
        self.assertEqual(self.leftovers(), [])

    # An open descriptor: written as it is, never reopened or truncated.

    def test_stdout_appended_under_append_mode(self):
        log = self.path("log")
        with open(log, "w") as f:
            f.write("earlier line\n")
        with open(log, "a") as f:
            p = run("-x", ",", "-o", "/dev/stdout", "-e", "task-clock", "--", "sh", "-c", "echo A",
                    stdout=f)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(log) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "earlier line")
        self.assertEqual(lines[1], "A")
        self.assertTrue(lines[2].endswith(",task-clock,task-clock,-,1,counted,,,,,,,,"), lines)

    def test_dev_fd_written_after_the_command(self):
        log = self.path("log")
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"head\n")
        p = run("-x", ",", "-o", "/dev/fd/%d" % fd, "-e", "task-clock", "--", "true", pass_fds=(fd,))
        os.close(fd)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(log) as f:
            text = f.read()
        self.assertTrue(text.startswith("head\n"), text)
        self.assertIn(",task-clock,", text)

    def test_descriptor_not_open_or_read_only(self):
        p = run("-o", "/dev/fd/9", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125)
        self.assertIn("-o /dev/fd/9: descriptor 9 is not open", p.stderr)
        with open(self.victim) as f:
            p = run("-o", "/dev/fd/%d" % f.fileno(), "-e", "task-clock", "--", "true", pass_fds=(f.fileno(),))
        self.assertEqual(p.returncode, 125)
        self.assertIn("open for reading only", p.stderr)

    # Failed writes: exit 125, naming the file, nothing half-written.

    def test_dev_full_is_a_failure(self):
        p = run("--json", "-o", "/dev/full", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("-o /dev/full: cannot write: No space left on device", p.stderr)

    def test_stderr_full_is_a_failure(self):
        with open("/dev/full", "w") as full:
            p = subprocess.run([PMUSTAT, "--json", "-e", "task-clock", "--", "true"], stderr=full,
                               stdout=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 125)

    def test_save_baseline_failures(self):
        missing = self.path("no/such/dir/base.json")
        p = run("--save-baseline", missing, "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("--save-baseline " + missing + ": cannot write", p.stderr)
        p = run("--save-baseline", "/dev/full", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("--save-baseline /dev/full: cannot write", p.stderr)

    def test_missing_directory_refused_before_counting(self):
        p = run("-o", self.path("no/out.json"), "-e", "task-clock", "--", "sh", "-c", "echo RAN")
        self.assertEqual(p.returncode, 125)
        self.assertNotIn("RAN", p.stdout)

    # The invoking user's rights, not root's.

    @unittest.skipUnless(os.geteuid() == 0, "needs root to act for another user")
    def test_root_file_refused_for_the_sudo_user(self):
        secret = self.path("secret")
        with open(secret, "w") as f:
            f.write("root only\n")
        os.chmod(secret, 0o600)
        # The directory is the user's own: only the file's rights say no.
        os.chown(self.dir.name, NOBODY, NOBODY)
        p = run("-o", secret, "--json", "-e", "task-clock", "--", "true", env=as_nobody())
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("Permission denied", p.stderr)
        with open(secret) as f:
            self.assertEqual(f.read(), "root only\n")
        # A directory of root's: cannot even create there.
        os.chown(self.dir.name, 0, 0)
        os.chmod(self.dir.name, 0o755)
        p = run("-o", self.path("new.json"), "--json", "-e", "task-clock", "--", "true", env=as_nobody())
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertFalse(os.path.exists(self.path("new.json")))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to act for another user")
    def test_files_belong_to_the_sudo_user(self):
        os.chown(self.dir.name, NOBODY, NOBODY)
        out, base = self.path("out.json"), self.path("base.json")
        p = run("-o", out, "--json", "--save-baseline", base, "-e", "task-clock", "--", "true",
                env=as_nobody())
        self.assertEqual(p.returncode, 0, p.stderr)
        for f in (out, base):
            st = os.stat(f)
            self.assertEqual((st.st_uid, st.st_gid), (NOBODY, NOBODY), f)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to act for another user")
    def test_files_named_are_read_as_the_sudo_user(self):
        # A file only root may read: the sudo user cannot have pmustat read it for them.
        secret = self.path("secret.json")
        with open(secret, "w") as f:
            f.write('{"format_version": 1}\n')
        os.chmod(secret, 0o600)
        p = run("--baseline", secret, "-e", "task-clock", "--", "true", env=as_nobody())
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("Permission denied", p.stderr)
        for sub in ("info", "list"):
            p = run(sub, "--cpu-dump", secret, env=as_nobody())
            self.assertEqual(p.returncode, 125, p.stderr)
            self.assertIn("Permission denied", p.stderr)
        # Root itself (no SUDO_UID) reads it, and says what is wrong with it.
        p = run("info", "--cpu-dump", secret)
        self.assertEqual(p.returncode, 125)
        self.assertNotIn("Permission denied", p.stderr)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to act for another user")
    def test_save_cpu_dump_as_the_sudo_user(self):
        os.chown(self.dir.name, NOBODY, NOBODY)
        dump = self.path("cpu.txt")
        p = run("info", "-C", "0", "--save-cpu-dump", dump, env=as_nobody())
        if p.returncode == 125 and "CPUID" in p.stderr and not os.path.exists(dump):
            self.skipTest("no CPUID here: " + p.stderr)
        self.assertTrue(os.path.exists(dump), p.stderr)
        self.assertEqual(os.stat(dump).st_uid, NOBODY)


if __name__ == "__main__":
    unittest.main(verbosity=2)
