#!/usr/bin/env python3
"""`pmustat --help` and the man page agree: every long option the help names
is documented in man/pmustat.1, and both list the same exit statuses."""
import re
import subprocess
import sys
import unittest

PMUSTAT = sys.argv.pop(1)
MANPAGE = sys.argv.pop(1)


def help_text(*args):
    p = subprocess.run([PMUSTAT, *args], capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


class HelpAndManPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(MANPAGE) as f:
            # mdoc writes "--json" as "Fl \-json"; compare the plain text.
            cls.man = f.read().replace("\\-", "-")
        rc, cls.help, err = help_text("--help")
        assert rc == 0, err

    def test_help_goes_to_stdout_and_names_every_subcommand(self):
        for word in ("info", "list", "state", "reset", "serve"):
            self.assertIn("pmustat " + word, self.help)
            self.assertTrue(".Nm\n.Cm " + word + "\n" in self.man, "no synopsis for " + word)

    def test_every_option_in_help_is_in_the_man_page(self):
        subcommand_help = [help_text(w, "--help")[1] for w in ("info", "list", "state", "reset", "serve")]
        options = set()
        for text in [self.help] + subcommand_help:
            options.update(re.findall(r"(?<![\w-])--([a-z][a-z-]+)", text))
        self.assertIn("repeat", options)
        self.assertIn("cpu-dump", options)
        # ".It Fl e , -event Ar events", ".Op Fl -json", ".Fl -version | -help"
        missing = sorted(o for o in options
                         if not re.search(r"Fl [^\n]*-" + re.escape(o) + r"(?![\w-])", self.man))
        self.assertEqual(missing, [], "options in --help but not in man/pmustat.1")

    def test_exit_statuses_agree(self):
        for code in ("125", "126", "127"):
            self.assertIn(code, self.help)
            self.assertRegex(self.man, r"\.It " + code + r"\b")
        self.assertIn("3 a CI gate", self.help)
        self.assertRegex(self.man, r"\.It 3\b")

    def test_option_errors_name_the_option_as_typed(self):
        cases = [
            (["state", "--watch"], "pmustat state: option --watch needs a value; try 'pmustat state --help'"),
            (["state", "--bogus"], "pmustat state: unknown option --bogus; try 'pmustat state --help'"),
            (["state", "-Z"], "pmustat state: unknown option -Z; try 'pmustat state --help'"),
            (["reset", "-C"], "pmustat reset: option -C needs a value; try 'pmustat reset --help'"),
            (["--backend"], "pmustat: option --backend needs a value; try 'pmustat --help'"),
            (["-e"], "pmustat: option -e needs a value; try 'pmustat --help'"),
            (["-Z", "true"], "pmustat: unknown option -Z; try 'pmustat --help'"),
            (["stat", "-e"], "pmustat stat: option -e needs a value; try 'pmustat stat --help'"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                rc, out, err = help_text(*args)
                self.assertEqual(rc, 125)
                self.assertEqual(out, "")
                self.assertEqual(err, message + "\n")

    def test_a_bad_option_is_one_line_for_every_subcommand(self):
        # The whole of stderr: the option as typed and where help is, nothing else.
        for sub in ("", "stat", "info", "list", "state", "reset"):
            with self.subTest(sub=sub):
                prog = "pmustat" + (" " + sub if sub else "")
                args = ([sub] if sub else []) + ["--bogus"] + ([] if sub else ["true"])
                rc, out, err = help_text(*args)
                self.assertEqual(rc, 125)
                self.assertEqual(out, "")
                self.assertEqual(err, "%s: unknown option --bogus; try '%s --help'\n" % (prog, prog))
                rc, out, err = help_text(*(([sub] if sub else []) + ["--bogus=1"]))
                self.assertEqual(rc, 125)
                self.assertEqual(len(err.splitlines()), 1, err)

    def test_stat_names_counting_and_dash_dash_counts_a_program_called_stat(self):
        # "stat" as the first word is the counting mode, as in perf; after
        # "--" it is the command. Neither may take the other's meaning.
        rc, out, err = help_text("stat", "--help")
        self.assertEqual(rc, 0, err)
        self.assertIn("usage: pmustat [stat]", out)
        self.assertEqual(help_text("help", "stat")[1], out)
        rc, out, err = help_text("stat", "-e", "no-such-event", "--", "true")
        self.assertEqual(rc, 125)
        self.assertTrue(err.startswith("pmustat stat: "), err)
        rc, out, err = help_text("-e", "task-clock", "--", "stat", "--version")
        if "perf_event" in err and rc == 125:
            self.skipTest("perf_event_open is refused here: " + err.splitlines()[-1])
        self.assertEqual(rc, 0, err)
        self.assertIn("stat (GNU coreutils)", out)

    def test_version(self):
        rc, out, _ = help_text("--version")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^pmustat \d+\.\d+\.\d+\n$")

    def test_no_arguments_is_a_usage_error(self):
        rc, out, err = help_text()
        self.assertEqual(rc, 125)
        self.assertEqual(out, "")
        self.assertIn("usage: pmustat", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
