"""condlint: lint conditional operations (If) in ONNX, OpenVINO IR and Android NNAPI models from Python.

    import condlint
    report = condlint.lint(["models/"], fail_on="warning", disable=["C011"])
    assert not report.errors, "\\n".join(map(str, report.errors))

The work is done by the condlint executable inside this package (`condlint` on the command line, or
`python -m condlint`); lint() runs it with `--format json` and returns the parsed report.
"""

from ._report import FileResult, Finding, Location, Report, ReportFormatError, parse_report
from ._run import CondlintError, binary, lint, lint_command, version

try:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _dist_version

    __version__ = _dist_version("condlint")
except PackageNotFoundError:  # imported from the source tree (python/), not installed
    __version__ = "0+unknown"

__all__ = [
    "CondlintError",
    "FileResult",
    "Finding",
    "Location",
    "Report",
    "ReportFormatError",
    "binary",
    "lint",
    "lint_command",
    "parse_report",
    "version",
]
