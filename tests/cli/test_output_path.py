#!/usr/bin/env python3
"""-o FILE as root: a symbolic link somebody else planted is refused and its
target left alone; pmustat's own links (like /dev/stdout) are followed."""
import os
import subprocess
import sys
import tempfile
import unittest

PMUSTAT = sys.argv.pop(1)


def run(*args):
    return subprocess.run([PMUSTAT, *args], capture_output=True, text=True, timeout=60)


@unittest.skipUnless(os.geteuid() == 0, "needs root to plant a link owned by another user")
class OutputPath(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.victim = os.path.join(self.dir.name, "victim")
        with open(self.victim, "w") as f:
            f.write("keep me\n")

    def tearDown(self):
        self.dir.cleanup()

    def test_planted_link_is_refused(self):
        link = os.path.join(self.dir.name, "out.json")
        os.symlink(self.victim, link)
        os.lchown(link, 65534, 65534)
        p = run("-o", link, "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("symbolic link owned by uid 65534", p.stderr)
        with open(self.victim) as f:
            self.assertEqual(f.read(), "keep me\n")

    def test_own_link_is_followed(self):
        link = os.path.join(self.dir.name, "mine.json")
        os.symlink(self.victim, link)
        p = run("-o", link, "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.victim) as f:
            self.assertIn('"format_version"', f.read())

    def test_regular_file(self):
        out = os.path.join(self.dir.name, "plain.json")
        p = run("-o", out, "--json", "-e", "task-clock", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        mask = os.umask(0)
        os.umask(mask)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o644 & ~mask)


if __name__ == "__main__":
    unittest.main(verbosity=2)
