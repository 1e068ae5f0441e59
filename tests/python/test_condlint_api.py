"""The Python package (python/condlint/): parsing of the JSON report, the options lint() passes, lint() and the
console entry point against the executable of this build (CONDLINT_BINARY), and the version's one source.

Run by ctest (Python.CondlintApi) with the source tree's package on PYTHONPATH; no wheel is built."""

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
        self.assertEqual(cmd, ["/bin/condlint-under-test", "lint", "--format", "json", "--fail-on", "warning",
                               "--disable", "C011", "--disable", "IR", "--exec", "--jobs", "2", "--nnapi-target",
                               "hal", "--cache", ".c", "--", "models/", "-odd.onnx"])
        self.assertEqual(condlint.lint_command("one.onnx", j=1)[-4:], ["-j", "1", "--", "one.onnx"])

    def test_the_report_format_is_lints_own(self):
        for key in ("format", "output", "o"):
            with self.subTest(key=key), self.assertRaises(TypeError):
                condlint.lint_command("m.onnx", **{key: "text"})
        with self.assertRaises(ValueError):
            condlint.lint_command([])


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

    def test_the_hooks_pass_the_model_files(self):
        mirror = ROOT / "pre-commit" / ".pre-commit-hooks.yaml"
        self.assertEqual(hook_field(mirror, "language"), "python")
        files = hook_field(mirror, "files")
        self.assertEqual(files, hook_field(ROOT / ".pre-commit-hooks.yaml", "files"))
        for name in ("m.onnx", "zoo/a b/net.xml", "x.nnapi.json", "AndroidManifest.xml"):
            self.assertRegex(name, files)
        for name in ("m.onnx.txt", "a.json", "r.sarif", "model.bin", "m.tflite"):
            self.assertNotRegex(name, files)


if __name__ == "__main__":
    unittest.main(verbosity=2)
