"""Finding the bundled condlint executable and running `condlint lint` from Python."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence, Union

from ._report import Report, ReportFormatError, parse_report

PathLike = Union[str, "os.PathLike[str]"]

# Options lint() sets itself: the report comes back as JSON on standard output.
_RESERVED = {"format", "output", "o"}


class CondlintError(RuntimeError):
    """condlint could not do all it was asked (exit code 2): a usage error, a path that does not exist, a file
    that could not be read, a report that could not be written. `stderr` has condlint's messages; `report` is
    the report of what could be linted, when one was written."""

    def __init__(self, message: str, exit_code: int, stderr: str, report: Optional[Report] = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr
        self.report = report


def binary() -> str:
    """The condlint executable: $CONDLINT_BINARY when set, else the one installed inside this package."""
    override = os.environ.get("CONDLINT_BINARY")
    if override:
        return override
    exe = Path(__file__).resolve().parent / "bin" / "condlint"
    if not exe.is_file():
        raise FileNotFoundError(
            f"{exe} is missing: this condlint package has no executable (install the wheel, or set CONDLINT_BINARY)"
        )
    return str(exe)


def _option_args(options: dict) -> List[str]:
    """Command-line arguments from keyword options: fail_on="warning" -> --fail-on warning; exec=True -> --exec;
    disable=["C011", "IR"] -> --disable C011 --disable IR; False and None leave an option out."""
    args: List[str] = []
    for key, value in options.items():
        if key in _RESERVED:
            raise TypeError(f"lint() writes the JSON report itself: the option {key!r} is not accepted")
        flag = ("-" if len(key) == 1 else "--") + key.rstrip("_").replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def lint_command(paths: Union[PathLike, Iterable[PathLike]], **options: Any) -> List[str]:
    """The command line lint() runs."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    path_args = [os.fspath(p) for p in paths]
    if not path_args and "files_from" not in options:
        raise ValueError("lint() needs at least one path")
    # "--" ends the options: a path that starts with "-" is still a path.
    return [binary(), "lint", "--format", "json", *_option_args(options), "--", *path_args]


def lint(
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    cwd: Optional[PathLike] = None,
    timeout: Optional[float] = None,
    **options: Any,
) -> Report:
    """Lint model files or directories and return the report.

    Keyword options are `condlint lint`'s (README, `condlint lint --help`) with dashes as underscores:
    fail_on="warning", enable=["C0"], disable=["C011"], config="ci.yaml", baseline="old.sarif", exec=True,
    nnapi_target="hal", jobs=2, sarif="r.sarif", html="r.html", cache=".condlint-cache", max_warnings=0.

    The report's exit_code is condlint's: 0 clean at fail_on, 1 findings. Exit code 2 (a usage error, a path
    that does not exist, a file that could not be read, an output that could not be written) raises
    CondlintError, whose `report` holds what was linted when a report was written.
    """
    cmd = lint_command(paths, **options)
    proc = subprocess.run(
        cmd,
        cwd=os.fspath(cwd) if cwd is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
    )
    stderr = proc.stderr.decode("utf-8", "replace")
    report: Optional[Report] = None
    try:
        report = parse_report(proc.stdout, exit_code=proc.returncode, stderr=stderr)
    except ReportFormatError:
        pass
    if proc.returncode in (0, 1) and report is not None:
        return report
    detail = stderr.strip() or "no report and no message"
    raise CondlintError(f"condlint lint failed (exit code {proc.returncode}): {detail}", proc.returncode, stderr, report)


def version() -> str:
    """The version the executable reports (`condlint --version`)."""
    out = subprocess.run([binary(), "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return out.stdout.decode().split()[-1]
