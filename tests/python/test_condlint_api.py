"""The Python package (python/condlint/): parsing of the JSON report, the options lint() passes, lint() and the
console entry point against the executable of this build (CONDLINT_BINARY), and the version's one source.

Run by ctest (Python.CondlintApi) with the source tree's package on PYTHONPATH; no wheel is built."""

import errno
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import condlint  # noqa: E402
from condlint import _run  # noqa: E402

BINARY = os.environ.get("CONDLINT_BINARY", "")

SAMPLE = {
    "files": [
        {
            "findings": [
                {
                    "level": "error",
                    "location": {"column": 9, "line": 26, "node": "main/if", "path": "m/a.xml"},
                    "message": "If 'if' output 0: the then branch gives f32, the else branch gives i64",
                    "name": "branch-type-mismatch",
                    "rule": "C006",
                    "baselineState": "new",
                },
                {
                    "level": "note",
                    "location": {"node": "main/If_0", "path": "m/a.xml", "line": 40},
                    "message": "a note",
                    "name": "some-note",
                    "rule": "C011",
                },
            ],
            "format": "ir",
            "path": "m/a.xml",
        },
        {
            "findings": [
                {
                    "level": "warning",
                    "location": {"node": "main/IF#0", "path": "m/b.nnapi.json", "line": 3, "column": 5,
                                 "pointer": "/main/operands/3"},
                    "message": "w",
                    "name": "some-warning",
                    "rule": "NN012",
                }
            ],
            "format": "nnapi",
            "path": "m/b.nnapi.json",
        },
        {"findings": [], "format": "onnx", "path": "m/c.onnx"},
    ],
    "summary": {"errors": 1, "files": 3, "notes": 1, "warnings": 1},
    "tool": {"name": "condlint", "version": "9.8.7"},
    "futureField": {"kept": True},
}


class ParseReport(unittest.TestCase):
    def test_findings_become_objects(self):
        r = condlint.parse_report(json.dumps(SAMPLE), exit_code=1)
        self.assertEqual(r.version, "9.8.7")
        self.assertEqual(r.exit_code, 1)
        self.assertFalse(r.ok)
        self.assertEqual(len(r), 3)
        self.assertEqual([f.rule for f in r], ["C006", "C011", "NN012"])
        e = r.errors[0]
        self.assertEqual((e.level, e.rule, e.name), ("error", "C006", "branch-type-mismatch"))
        self.assertEqual((e.path, e.line, e.column, e.node), ("m/a.xml", 26, 9, "main/if"))
        self.assertEqual(e.baseline_state, "new")
        self.assertEqual(str(e), "m/a.xml:26:9: error: If 'if' output 0: the then branch gives f32, the else "
                         "branch gives i64 [C006]")
        self.assertEqual(r.notes[0].column, None)
        self.assertEqual(str(r.notes[0].location), "m/a.xml:40")
        self.assertEqual(r.warnings[0].location.pointer, "/main/operands/3")
        self.assertEqual(r.by_rule("C0"), [r.findings[0], r.findings[1]])
        self.assertEqual(r.by_rule("NN"), [r.findings[2]])
        self.assertEqual(r.rules(), ["C006", "C011", "NN012"])
        self.assertEqual(r.summary, {"files": 3, "errors": 1, "warnings": 1, "notes": 1})
        self.assertEqual([f.format for f in r.files], ["ir", "nnapi", "onnx"])
        self.assertEqual(r.unreadable, [])
        self.assertEqual(r.raw["futureField"], {"kept": True})
        self.assertTrue(str(r).endswith("3 files checked: 1 errors, 1 warnings, 1 notes"))
        with self.assertRaises(ValueError):
            r.at_level("fatal")

    def test_bytes_and_documents_parse_alike(self):
        a = condlint.parse_report(json.dumps(SAMPLE).encode())
        b = condlint.parse_report(SAMPLE)
        self.assertEqual(a, b)

    def test_what_is_not_a_report_is_refused(self):
        bad = [
            "",
            "[]",
            "{",
            json.dumps({**SAMPLE, "tool": {"name": "other", "version": "1.0.0"}}),
            json.dumps({k: v for k, v in SAMPLE.items() if k != "summary"}),
            json.dumps({**SAMPLE, "summary": {**SAMPLE["summary"], "errors": True}}),
            json.dumps({**SAMPLE, "files": [{"path": "x", "format": "ir", "findings": [{"rule": "C001"}]}]}),
            json.dumps({**SAMPLE, "files": [{"path": "x", "format": "ir", "findings": [
                {"rule": "C001", "name": "n", "level": "error", "message": "m",
                 "location": {"path": "x", "node": "main", "line": "7"}}]}]}),
        ]
        for text in bad:
            with self.subTest(text=text[:60]), self.assertRaises(condlint.ReportFormatError):
                condlint.parse_report(text)


class Options(unittest.TestCase):
    def setUp(self):
        os.environ["CONDLINT_BINARY"] = "/bin/condlint-under-test"

    def tearDown(self):
        if BINARY:
            os.environ["CONDLINT_BINARY"] = BINARY
        else:
            os.environ.pop("CONDLINT_BINARY", None)

    def test_keywords_become_lint_options(self):
        cmd = condlint.lint_command(
            ["models/", Path("-odd.onnx")], fail_on="warning", disable=["C011", "IR"], exec=True,
            jobs=2, baseline=None, nnapi_target="hal", j=None, cache=Path(".c"), html=False)
        self.assertEqual(cmd, ["/bin/condlint-under-test", "lint", "--format", "json", "--paths0-from", "-",
                               "--fail-on", "warning", "--disable", "C011", "--disable", "IR", "--exec", "--jobs", "2",
                               "--nnapi-target", "hal", "--cache", ".c"])
        self.assertEqual(condlint.lint_command("one.onnx", j=1)[-2:], ["-j", "1"])

    def test_the_report_format_is_lints_own(self):
        for key in ("format", "output", "o"):
            with self.subTest(key=key), self.assertRaises(TypeError):
                condlint.lint_command("m.onnx", **{key: "text"})
        with self.assertRaises(ValueError):
            condlint.lint_command([])

    def test_reserved_options_are_refused_however_spelled(self):
        # The command line sees fail_on_ as --fail-on: output_ would be --output, and condlint would write the
        # report to a file named f instead of the standard output lint() reads.
        spellings = ["format", "format_", "_format", "__format__", "Format", "FORMAT_", "output", "output_",
                     "_output", "output__", "Output", "OUTPUT", "o", "o_", "_o", "O", "help", "h", "version",
                     "paths0_from", "_paths0_from", "paths0_from_", "Paths0_From"]
        for key in spellings:
            with self.subTest(key=key), self.assertRaises(TypeError) as cm:
                condlint.lint_command("m.onnx", **{key: "f"})
            self.assertIn(repr(key), str(cm.exception))
            self.assertIn("reserved", str(cm.exception))
        for key in ("output=f", "o f", "-o", "", "_", "files/from"):  # no option's name: never on the command line
            with self.subTest(key=key), self.assertRaises(TypeError) as cm:
                condlint.lint_command("m.onnx", **{key: "f"})
            self.assertIn("names no condlint lint option", str(cm.exception))
        self.assertEqual(condlint.lint_command("m.onnx", _jobs=2, fail_on_="note", sarif="s", html="h")[6:12],
                         ["--jobs", "2", "--fail-on", "note", "--sarif", "s"])
        with self.assertRaises(ValueError):
            condlint.lint_command("m.onnx", files_from="-")  # lint()'s standard input is its own

    def test_the_paths_go_on_standard_input_nul_separated(self):
        # Each path as it is, in order, repeated as given: --paths0-from - takes each as if named on the command line.
        paths = ["m.onnx", "m.onnx", "-dash.onnx", "--html=x.xml", "nl\nx.onnx", "cr.onnx\r", Path("dir"),
                 b"\xff.onnx", "caf\udce9.onnx", "m.onnx"]
        cmd, stdin = _run._plan(paths, {"jobs": 2})
        self.assertEqual(cmd, ["/bin/condlint-under-test", "lint", "--format", "json", "--paths0-from", "-",
                               "--jobs", "2"])
        self.assertEqual(stdin, b"m.onnx\0m.onnx\0-dash.onnx\0--html=x.xml\0nl\nx.onnx\0cr.onnx\r\0dir\0"
                                b"\xff.onnx\0caf\xe9.onnx\0m.onnx\0")
        self.assertEqual(condlint.lint_command(paths, jobs=2), cmd)
        self.assertEqual(_run._plan("one.onnx", {}), (cmd[:6], b"one.onnx\0"))
        cmd, stdin = _run._plan([f"m{i}.onnx" for i in range(300_000)], {})
        self.assertEqual(len(cmd), 6)
        self.assertEqual(stdin.count(b"\0"), 300_000)
        # A list of one's own is read after the paths.
        self.assertEqual(condlint.lint_command([], files_from="l.txt")[4:], ["--paths0-from", "-", "--files-from",
                                                                              "l.txt"])

    def test_a_path_no_file_can_have_is_refused_by_name(self):
        for p in ("a\0b.onnx", b"a\0b.onnx", "", b""):
            with self.subTest(path=p), self.assertRaises(condlint.CondlintError) as cm:
                condlint.lint(["ok.onnx", p])
            self.assertIn(repr(p), str(cm.exception))
            self.assertIn("no file has such a name", str(cm.exception))
            self.assertIsNone(cm.exception.exit_code)


class ThroughStandardInput(unittest.TestCase):
    """lint() against a stand-in executable that records its command line and standard input."""

    def tearDown(self):
        if BINARY:
            os.environ["CONDLINT_BINARY"] = BINARY
        else:
            os.environ.pop("CONDLINT_BINARY", None)

    def test_300000_paths_reach_the_executable_on_standard_input(self):
        with tempfile.TemporaryDirectory() as d:
            fake = Path(d) / "condlint"
            report = json.dumps({"files": [], "summary": {"errors": 0, "files": 0, "notes": 0, "warnings": 0},
                                 "tool": {"name": "condlint", "version": "9.8.7"}})
            fake.write_text(f"#!{sys.executable}\n"
                            "import json, sys\n"
                            f"open({str(Path(d) / 'argv')!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
                            f"open({str(Path(d) / 'stdin')!r}, 'wb').write(sys.stdin.buffer.read())\n"
                            f"print({report!r})\n")
            os.chmod(fake, 0o755)
            os.environ["CONDLINT_BINARY"] = str(fake)
            paths = [f"-models/m{i:06d}.onnx" for i in range(300_000)] + [b"\xff\n.onnx"]
            r = condlint.lint(paths, fail_on="note")
            self.assertEqual(r.version, "9.8.7")
            self.assertEqual(json.loads((Path(d) / "argv").read_text()),
                             ["lint", "--format", "json", "--paths0-from", "-", "--fail-on", "note"])
            self.assertEqual((Path(d) / "stdin").read_bytes(), b"".join(os.fsencode(p) + b"\0" for p in paths))


class NotRun(unittest.TestCase):
    """An executable that cannot be started is a CondlintError naming it and why, from the OSError."""

    def tearDown(self):
        if BINARY:
            os.environ["CONDLINT_BINARY"] = BINARY
        else:
            os.environ.pop("CONDLINT_BINARY", None)

    def assert_not_run(self, call, *words):
        with self.assertRaises(condlint.CondlintError) as cm:
            call()
        e = cm.exception
        self.assertIsInstance(e.__cause__, OSError)
        self.assertIsNone(e.exit_code)
        self.assertTrue(str(e).startswith("cannot run the condlint executable " + os.environ["CONDLINT_BINARY"]),
                        str(e))
        for w in words:
            self.assertIn(w, str(e))
        return e

    def test_an_executable_that_is_missing_or_not_executable(self):
        with tempfile.TemporaryDirectory() as d:
            os.environ["CONDLINT_BINARY"] = str(Path(d) / "no-condlint")
            e = self.assert_not_run(lambda: condlint.lint("m.onnx"), "No such file or directory", "CONDLINT_BINARY")
            self.assertIsInstance(e.__cause__, FileNotFoundError)
            self.assert_not_run(condlint.version, "No such file or directory")
            plain = Path(d) / "condlint"
            plain.write_text("not a program\n")
            os.chmod(plain, 0o644)
            os.environ["CONDLINT_BINARY"] = str(plain)
            self.assert_not_run(lambda: condlint.lint("m.onnx"), "Permission denied")
            os.environ["CONDLINT_BINARY"] = sys.executable
            self.assert_not_run(lambda: condlint.lint("m.onnx", cwd=Path(d) / "gone"), "cwd=", str(Path(d) / "gone"))

    def test_a_command_line_too_long(self):
        # The paths are never on the command line, option values are: one of 200,000 bytes is more than Linux takes
        # for an argument (MAX_ARG_STRLEN, 128 KiB: E2BIG).
        os.environ["CONDLINT_BINARY"] = "/bin/true"
        e = self.assert_not_run(lambda: condlint.lint("m.onnx", config="c" * 200_000), "Argument list too long",
                                "8 arguments", "the paths go on standard input")
        self.assertEqual(e.__cause__.errno, errno.E2BIG)


@unittest.skipUnless(BINARY and os.access(BINARY, os.X_OK), "CONDLINT_BINARY (this build's condlint) is not set")
class AgainstTheExecutable(unittest.TestCase):
    def test_lint_gives_the_json_report_of_the_command_line(self):
        r = condlint.lint([ROOT / "corpus" / "ir"], cwd=ROOT, jobs=2)
        out = subprocess.run([BINARY, "lint", "--format", "json", "-j", "2", str(ROOT / "corpus" / "ir")],
                             cwd=ROOT, stdout=subprocess.PIPE)
        self.assertEqual(r.exit_code, out.returncode)
        self.assertEqual(r.exit_code, 1)
        self.assertEqual(r.raw, json.loads(out.stdout))
        self.assertGreater(len(r.errors), 10)
        c006 = [f for f in r.by_rule("C006") if f.path.endswith("C006_branch_types.xml")]
        self.assertEqual([(f.line, f.column, f.node) for f in c006], [(26, 9, "main/if")])

    def test_options_reach_the_executable(self):
        model = ROOT / "corpus" / "ir" / "invalid" / "C006_branch_types.xml"
        self.assertEqual(condlint.lint(model).rules(), ["C006"])
        quiet = condlint.lint(model, disable=["C006"])
        self.assertTrue(quiet.ok)
        self.assertEqual(len(quiet), 0)
        with tempfile.TemporaryDirectory() as d:
            sarif = Path(d) / "r.sarif"
            condlint.lint(model, sarif=sarif)
            self.assertEqual(json.loads(sarif.read_text())["version"], "2.1.0")

    def test_exit_code_2_raises_with_condlints_message(self):
        with self.assertRaises(condlint.CondlintError) as cm:
            condlint.lint(ROOT / "no-such-dir" / "m.onnx")
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn("no such file", str(cm.exception))
        with self.assertRaises(condlint.CondlintError) as cm:
            condlint.lint(ROOT / "corpus", fail_on="loud")
        self.assertIn("--fail-on", cm.exception.stderr)
        self.assertIsNone(cm.exception.report)

    def test_more_paths_than_a_command_line_holds_are_one_run_as_the_command_line_would_do(self):
        # More than a command line holds: 600 paths of some 3,900 bytes (each spelled through "/." a thousand times
        # over), 2.3 MB, past Linux's 2 MiB (E2BIG); the stand-in above takes 300,000. Few lints, so the sanitized
        # suite runs it quickly too. Named twice on the command line, a file is linted twice, in the order named: the
        # report is the three paths' report 200 times over.
        def long(rel):
            head, name = rel.rsplit("/", 1)
            return str(ROOT / "corpus" / head) + "/." * 1900 + "/" + name
        three = [long("ir/valid/body_without_parameters.xml"), long("ir/invalid/C006_branch_types.xml"),
                 long("ir/valid/body_without_parameters.xml")]
        out = subprocess.run([BINARY, "lint", "--format", "json", "--", *three], stdout=subprocess.PIPE)
        once = json.loads(out.stdout)
        self.assertEqual([f["path"] for f in once["files"]], three)
        self.assertGreater(sum(len(p) + 1 for p in three * 200), 2 << 20)
        r = condlint.lint(three * 200)
        self.assertEqual(r.exit_code, out.returncode)
        self.assertEqual(r.exit_code, 1)
        self.assertEqual(r.raw["files"], once["files"] * 200)
        self.assertEqual(r.summary, {k: v * 200 for k, v in once["summary"].items()})

    def test_every_path_is_taken_as_the_command_line_takes_it(self):
        model = ROOT / "corpus" / "ir" / "invalid" / "C006_branch_types.xml"
        with tempfile.TemporaryDirectory() as d:
            base = Path(d)
            (base / "plain.xml").write_text("<?xml version='1.0'?><network/>")  # not IR: linted all the same (IR002)
            onnx = (ROOT / "corpus" / "onnx" / "valid" / "multi_output.onnx").read_bytes()
            for name in ("odd\nname.onnx", "-dash.onnx", "cr\r.onnx"):
                (base / name).write_bytes(onnx)
            (base / "--html=x.xml").write_bytes(model.read_bytes())  # a path, not an option: no page is written
            (base / os.fsdecode(b"\xff.xml")).write_bytes(model.read_bytes())  # not UTF-8: bytes, or str escaped
            paths = ["plain.xml", "odd\nname.onnx", "-dash.onnx", "cr\r.onnx", "--html=x.xml",
                     str(ROOT / "corpus" / "nnapi" / "valid"), str(model), "-dash.onnx", "--html=x.xml",
                     b"\xff.xml", os.fsdecode(b"\xff.xml")]

            def command_line(*args):
                return subprocess.run([BINARY, "lint", "--format", "json", *args], cwd=base, stdout=subprocess.PIPE)

            out = command_line("--", *paths)
            r = condlint.lint(paths, cwd=base)
            self.assertEqual((r.exit_code, r.raw), (out.returncode, json.loads(out.stdout)))
            self.assertEqual([f.path for f in r.files][:5], paths[:5])
            self.assertEqual(r.by_rule("IR002")[0].path, "plain.xml")
            self.assertFalse((base / "x.xml").exists())
            out = command_line("--models-only", "--", *paths)
            self.assertEqual(condlint.lint(paths, cwd=base, models_only=True).raw, json.loads(out.stdout))
            # A path that does not exist is condlint's error, the other paths linted as the command line lints them.
            missing = ["missing.onnx", "plain.xml", "missing.onnx"]
            out = command_line("--", *missing)
            with self.assertRaises(condlint.CondlintError) as cm:
                condlint.lint(missing, cwd=base)
            self.assertEqual(cm.exception.exit_code, out.returncode)
            self.assertEqual(cm.exception.exit_code, 2)
            self.assertIn("missing.onnx: no such file", str(cm.exception))
            self.assertEqual(cm.exception.report.raw, json.loads(out.stdout))

    def test_output_under_another_spelling_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            for key in ("output_", "_output", "o_", "format_"):
                with self.subTest(key=key), self.assertRaises(TypeError):
                    condlint.lint(ROOT / "corpus" / "ir", cwd=d, **{key: "f"})
            self.assertEqual(os.listdir(d), [])

    def test_python_m_condlint_is_the_executable(self):
        env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
        out = subprocess.run([sys.executable, "-m", "condlint", "--version"], env=env, stdout=subprocess.PIPE)
        self.assertEqual(out.returncode, 0)
        self.assertEqual(out.stdout.decode().strip(), "condlint " + condlint.version())
        code = subprocess.run([sys.executable, "-m", "condlint", "lint", "--fail-on", "loud", "x"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        self.assertEqual(code, 2)

    def test_the_version_has_one_source(self):
        # pyproject.toml reads the version out of CMakeLists.txt with its regex; the executable reports the same.
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib needs Python 3.11")
        with open(ROOT / "pyproject.toml", "rb") as f:
            sk = tomllib.load(f)["tool"]["scikit-build"]["metadata"]["version"]
        self.assertEqual(sk["input"], "CMakeLists.txt")
        m = re.search(sk["regex"], (ROOT / sk["input"]).read_text())
        self.assertIsNotNone(m)
        self.assertEqual(m.group("value"), condlint.version())


def cmake_version():
    m = re.search(r"^project\(condlint VERSION ([0-9]+\.[0-9]+\.[0-9]+)", (ROOT / "CMakeLists.txt").read_text(), re.M)
    assert m, "CMakeLists.txt has no project(condlint VERSION X.Y.Z)"
    return m.group(1)


def hook_field(path, key):
    m = re.search(r"^\s*" + key + r": (.*?)\s*(#.*)?$", path.read_text(), re.M)
    return m.group(1) if m else None


class ReleasePins(unittest.TestCase):
    """What installs condlint from PyPI names the version CMakeLists.txt gives (docs/python.md, "Releasing")."""

    def test_the_hook_package_and_the_action_install_this_version(self):
        v = cmake_version()
        hook = (ROOT / "pre-commit" / "pyproject.toml").read_text()
        self.assertRegex(hook, r'(?m)^version = "' + re.escape(v) + '"$')
        self.assertRegex(hook, r'(?m)^dependencies = \["condlint==' + re.escape(v) + r'"\]$')
        action = (ROOT / "action.yml").read_text()
        self.assertRegex(action, r'  version:\n.*\n    default: "' + re.escape(v) + '"\n')

    def test_every_hook_ends_its_args_with_a_double_dash_and_has_its_language(self):
        # pre-commit puts the file names after the args: "--" makes each a file (docs/ci.md, "pre-commit").
        for path, languages in ((ROOT / "pre-commit" / ".pre-commit-hooks.yaml", {"condlint": "python",
                                                                                  "condlint-system": "system"}),
                                (ROOT / ".pre-commit-hooks.yaml", {"condlint-system": "system",
                                                                    "condlint": "system"})):
            hooks = re.split(r"(?m)^- id: ", path.read_text())[1:]
            self.assertEqual([h.split("\n", 1)[0].strip() for h in hooks], list(languages), path)
            for h in hooks:
                hid = h.split("\n", 1)[0].strip()
                self.assertRegex(h, r'(?m)^  args: \["--"\]', (path, hid))
                self.assertRegex(h, r"(?m)^  entry: condlint lint --models-only\s*(#.*)?$", (path, hid))
                self.assertRegex(h, r"(?m)^  language: " + languages[hid] + r"\s*(#.*)?$", (path, hid))
                self.assertRegex(h, r"(?m)^  files: \\\.\(xml\|onnx\|nnapi\\\.json\|tflite\)\$", (path, hid))

    def test_the_hooks_pass_the_model_files(self):
        mirror = ROOT / "pre-commit" / ".pre-commit-hooks.yaml"
        self.assertEqual(hook_field(mirror, "language"), "python")
        files = hook_field(mirror, "files")
        self.assertEqual(files, hook_field(ROOT / ".pre-commit-hooks.yaml", "files"))
        for name in ("m.onnx", "zoo/a b/net.xml", "x.nnapi.json", "AndroidManifest.xml", "app/src/main/assets/m.tflite"):
            self.assertRegex(name, files)
        for name in ("m.onnx.txt", "a.json", "r.sarif", "model.bin", "m.tflite.gz", "m.pt"):
            self.assertNotRegex(name, files)


if __name__ == "__main__":
    unittest.main(verbosity=2)
