"""Finding the bundled condlint executable and running `condlint lint` from Python."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from ._report import Report, ReportFormatError, parse_report

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# Options lint() sets itself, by their names as the command line spells them (see _option_name), and why.
# CLI11 (2.1) matches option names exactly: no prefix (--out), no other case (--Output), so these names are all.
_FORMAT = "lint() passes --format json itself and parses that report (for a SARIF or HTML file: sarif=, html=)"
_OUTPUT = (
    "lint() reads the JSON report from condlint's standard output, which --output would send to a file instead "
    "(for a SARIF or HTML file: sarif=, html=)"
)
_HELP = "lint() returns a report, which --help does not write (the options: `condlint lint --help`)"
_RESERVED = {
    "format": _FORMAT,
    "output": _OUTPUT,
    "o": _OUTPUT,
    "help": _HELP,
    "h": _HELP,
    "version": "lint() returns a report, which --version does not write (the version: condlint.version())",
    "paths0-from": (
        "lint() passes its paths on condlint's standard input with --paths0-from - itself (pass the paths: any "
        "number, any name)"
    ),
}

_OPTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*\Z")


class CondlintError(RuntimeError):
    """condlint could not do all it was asked (exit code 2): a usage error, a path that does not exist, a file
    that could not be read, a report that could not be written. `stderr` has condlint's messages; `report` is
    the report of what could be linted, when one was written.

    Also raised when the executable could not be run at all (not found, not executable, the command line too
    long, the working directory missing): `exit_code` is then None, and the OSError is the `__cause__`."""

    def __init__(
        self, message: str, exit_code: Optional[int] = None, stderr: str = "", report: Optional[Report] = None
    ) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr
        self.report = report


def child_environment() -> dict:
    """The executable's environment: this one, with CONDLINT_PYTHON (the Python that runs the OpenVINO and ONNX Runtime
    adapters the wheel carries, for `--target` and `diff`) set to this interpreter unless it is set already."""
    env = dict(os.environ)
    env.setdefault("CONDLINT_PYTHON", sys.executable)
    return env


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


def _option_name(key: str) -> str:
    """The option a keyword names, as the command line spells it without its dashes: fail_on -> fail-on,
    format_ -> format, _output -> output. Raises TypeError for a keyword that names no option."""
    name = key.strip("_").replace("_", "-")
    if not _OPTION_NAME.match(name):
        raise TypeError(f"lint() got the keyword {key!r}, which names no condlint lint option")
    reason = _RESERVED.get(name.lower())
    if reason is not None:
        flag = ("-" if len(name) == 1 else "--") + name
        raise TypeError(f"lint() does not accept the option {key!r} ({flag}), reserved: {reason}")
    return name


def _option_args(options: Dict[str, Any]) -> List[str]:
    """Command-line arguments from keyword options: fail_on="warning" -> --fail-on warning; exec=True -> --exec;
    disable=["C011", "IR"] -> --disable C011 --disable IR; False and None leave an option out."""
    args: List[str] = []
    for key, value in options.items():
        name = _option_name(key)
        flag = ("-" if len(name) == 1 else "--") + name
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


def _plan(paths: Union[PathLike, Iterable[PathLike]], options: Dict[str, Any]) -> Tuple[List[Any], bytes]:
    """The command line lint() runs and what it writes to its standard input: the paths, each followed by a NUL
    byte, which `--paths0-from -` reads as if each were named on the command line (any number, any name)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    path_args = [os.fspath(p) for p in paths]
    option_args = _option_args(options)  # first: a keyword lint() refuses is the error, whatever the paths
    given = {_option_name(k) for k, v in options.items() if v is not None and v is not False}
    if not path_args and "files-from" not in given:
        raise ValueError("lint() needs at least one path")
    for k, v in options.items():
        if _option_name(k) != "files-from" or not isinstance(v, (str, bytes, os.PathLike)):
            continue
        if os.fspath(v) in ("-", b"-"):
            raise ValueError(
                f"{k}='-' would have condlint read lint()'s standard input, which lint() keeps for the paths: "
                "pass the paths, or the name of a file that lists them"
            )
    stdin = bytearray()
    for p in path_args:
        # What a NUL-separated list cannot hold, and no file is named: a NUL byte, the empty path.
        b = os.fsencode(p)
        if b"\0" in b:
            raise CondlintError(f"the path {p!r} holds a NUL byte: no file has such a name")
        if not b:
            raise CondlintError(f"the path {p!r} is empty: no file has such a name")
        stdin += b + b"\0"
    return [binary(), "lint", "--format", "json", "--paths0-from", "-", *option_args], bytes(stdin)


def lint_command(paths: Union[PathLike, Iterable[PathLike]], **options: Any) -> List[Any]:
    """The command line lint() runs: `condlint lint --format json --paths0-from - [options]`. The paths are not on
    it: lint() writes them to condlint's standard input, each followed by a NUL byte (str paths encoded with
    os.fsencode, bytes as they are), and condlint takes each as if named on the command line. To run it yourself:
    subprocess.run(cmd, input=b"".join(os.fsencode(p) + b"\\0" for p in paths), ...)."""
    return _plan(paths, options)[0]


def _not_run(exe: str, cmd: List[Any], cwd: Optional[PathLike], e: OSError) -> CondlintError:
    """The CondlintError for an executable that could not be started: what, which executable, why."""
    where = f" in {os.fspath(cwd)!r}" if cwd is not None else ""
    reason = e.strerror or str(e)
    if e.filename is not None and os.fspath(e.filename) != exe:
        reason += f": {os.fspath(e.filename)!r}"
    if e.errno == errno.E2BIG:
        size = sum(len(os.fsencode(a)) + 1 for a in cmd) + sum(len(k) + len(v) + 2 for k, v in os.environ.items())
        reason += (
            f" ({len(cmd):,} arguments, about {size:,} bytes with the environment; the paths go on standard input,"
            " the option values on the command line, which Linux limits to 2 MiB with the environment and 128 KiB"
            " an argument)"
        )
    elif cwd is not None and e.filename is not None and os.fspath(e.filename) == os.fspath(cwd):
        reason += " (the working directory given as cwd=)"
    elif isinstance(e, (FileNotFoundError, PermissionError)) or e.errno == errno.ENOEXEC:
        if os.environ.get("CONDLINT_BINARY") == exe:
            reason += " (the path is $CONDLINT_BINARY's: set it to a condlint executable, or unset it)"
        else:
            reason += " (reinstall the condlint package, or set CONDLINT_BINARY to a condlint executable)"
    return CondlintError(f"cannot run the condlint executable {exe}{where}: {reason}")


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
    Options lint() sets itself (format, output/o, paths0_from) or that write no report (help, version) raise
    TypeError, however spelled (format_, _output, O); files_from="-" raises ValueError (standard input carries the
    paths).

    Any number of paths, any name (str, bytes or os.PathLike; "-x.onnx" is a path): they go to condlint on its
    standard input, NUL-separated (`--paths0-from -`), each treated as if named on the command line: in the order
    given, a directory walked, a path named twice linted twice.

    The report's exit_code is condlint's: 0 clean at fail_on, 1 findings. Exit code 2 (a usage error, a path
    that does not exist, a file that could not be read, an output that could not be written) raises
    CondlintError, whose `report` holds what was linted when a report was written. An executable that cannot be
    run (not found, not executable, a command line too long) raises CondlintError too, with exit_code None; so
    does a path that no file can have (a NUL byte, empty).
    """
    try:
        cmd, stdin = _plan(paths, options)
    except FileNotFoundError as e:  # binary(): the package has no executable
        raise CondlintError(f"cannot run the condlint executable: {e}") from e
    exe = cmd[0]
    try:
        proc = subprocess.run(
            cmd,
            cwd=os.fspath(cwd) if cwd is not None else None,
            env=child_environment(),
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
    except OSError as e:
        raise _not_run(exe, cmd, cwd, e) from e
    stderr = proc.stderr.decode("utf-8", "replace")
    report: Optional[Report] = None
    try:
        report = parse_report(proc.stdout, exit_code=proc.returncode, stderr=stderr)
    except ReportFormatError:
        pass
    if proc.returncode in (0, 1) and report is not None:
        return report
    if proc.returncode < 0:
        detail = f"{exe} was killed by signal {-proc.returncode}"
        if stderr.strip():
            detail += ": " + stderr.strip()
    else:
        detail = stderr.strip() or "no report and no message"
    raise CondlintError(f"condlint lint failed (exit code {proc.returncode}): {detail}", proc.returncode, stderr, report)


def version() -> str:
    """The version the executable reports (`condlint --version`)."""
    try:
        exe = binary()
    except FileNotFoundError as e:
        raise CondlintError(f"cannot run the condlint executable: {e}") from e
    try:
        out = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise _not_run(exe, [exe, "--version"], None, e) from e
    words = out.stdout.decode("utf-8", "replace").split()
    if out.returncode != 0 or not words:
        detail = out.stderr.decode("utf-8", "replace").strip() or "no version and no message"
        raise CondlintError(f"{exe} --version failed (exit code {out.returncode}): {detail}", out.returncode,
                            out.stderr.decode("utf-8", "replace"))
    return words[-1]
