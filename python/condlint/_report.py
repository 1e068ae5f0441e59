"""The JSON report of `condlint lint --format json` (schemas/report.schema.json) as Python objects."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

LEVELS = ("error", "warning", "note")


@dataclass(frozen=True)
class Location:
    """Where a finding is: the file, a line and column (IR XML, NNAPI JSON), the node path, a JSON pointer (NNAPI).

    Binary ONNX findings have no line or column: the node path names the place.
    """

    path: str
    node: str
    line: Optional[int] = None
    column: Optional[int] = None
    pointer: Optional[str] = None

    def __str__(self) -> str:
        s = self.path
        if self.line is not None:
            s += f":{self.line}"
            if self.column is not None:
                s += f":{self.column}"
        return s


@dataclass(frozen=True)
class Finding:
    """One finding: level (error, warning, note), rule ID (C006), rule name, message and location."""

    level: str
    rule: str
    name: str
    message: str
    location: Location
    baseline_state: Optional[str] = None  # "new" or "unchanged", with the baseline option
    fixable: Optional[str] = None  # "safe" (condlint fix repairs it) or "unsafe" (with --unsafe-fixes)

    @property
    def path(self) -> str:
        return self.location.path

    @property
    def line(self) -> Optional[int]:
        return self.location.line

    @property
    def column(self) -> Optional[int]:
        return self.location.column

    @property
    def node(self) -> str:
        """The logical node path, e.g. main/If_3/then/Add."""
        return self.location.node

    def __str__(self) -> str:
        # The text report's line: file:line:column: level: message [rule]
        return f"{self.location}: {self.level}: {self.message} [{self.rule}]"


@dataclass(frozen=True)
class FileResult:
    """One linted file: its path, format (ir, onnx, nnapi, tflite; empty when unknown), findings and read error if any."""

    path: str
    format: str
    findings: Tuple[Finding, ...]
    error: Optional[str] = None


@dataclass(frozen=True)
class Report:
    """A lint report: the files, every finding in report order, the summary counts and condlint's exit code."""

    version: str
    files: Tuple[FileResult, ...]
    summary: Dict[str, int]
    exit_code: Optional[int] = None
    stderr: str = field(default="", repr=False, compare=False)  # what condlint logged while linting
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def findings(self) -> List[Finding]:
        return [f for file in self.files for f in file.findings]

    @property
    def errors(self) -> List[Finding]:
        return self.at_level("error")

    @property
    def warnings(self) -> List[Finding]:
        return self.at_level("warning")

    @property
    def notes(self) -> List[Finding]:
        return self.at_level("note")

    @property
    def unreadable(self) -> List[FileResult]:
        """Files that could not be read at all (condlint's exit code is then 2)."""
        return [f for f in self.files if f.error is not None]

    @property
    def ok(self) -> bool:
        """True when condlint exited 0: no finding at or above the fail-on level."""
        return self.exit_code == 0

    def at_level(self, level: str) -> List[Finding]:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        return [f for f in self.findings if f.level == level]

    def by_rule(self, rule: str) -> List[Finding]:
        """Findings of a rule ID (C006) or of every rule whose ID starts with a prefix (IR, C0)."""
        return [f for f in self.findings if f.rule.startswith(rule)]

    def rules(self) -> List[str]:
        """The rule IDs that fired, sorted, each once."""
        return sorted({f.rule for f in self.findings})

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def __str__(self) -> str:
        lines = [str(f) for f in self.findings]
        s = self.summary
        lines.append(
            f"{s.get('files', len(self.files))} files checked: {s.get('errors', 0)} errors, "
            f"{s.get('warnings', 0)} warnings, {s.get('notes', 0)} notes"
        )
        return "\n".join(lines)


class ReportFormatError(ValueError):
    """The text is not a condlint JSON report."""


def _require(obj: Any, key: str, kind: Union[type, Tuple[type, ...]], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise ReportFormatError(f"{where}: no '{key}'")
    value = obj[key]
    # bool is an int in Python; a JSON true is never a count or a line.
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ReportFormatError(f"{where}.{key}: not a {getattr(kind, '__name__', kind)}")
    return value


def _optional(obj: Dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in obj:
        return None
    return _require(obj, key, kind, where)


def _finding(obj: Any, where: str) -> Finding:
    loc = _require(obj, "location", dict, where)
    lw = where + ".location"
    return Finding(
        level=_require(obj, "level", str, where),
        rule=_require(obj, "rule", str, where),
        name=_require(obj, "name", str, where),
        message=_require(obj, "message", str, where),
        location=Location(
            path=_require(loc, "path", str, lw),
            node=_require(loc, "node", str, lw),
            line=_optional(loc, "line", int, lw),
            column=_optional(loc, "column", int, lw),
            pointer=_optional(loc, "pointer", str, lw),
        ),
        baseline_state=_optional(obj, "baselineState", str, where),
        fixable=_optional(obj, "fixable", str, where),
    )


def parse_report(
    doc: Union[str, bytes, Dict[str, Any]], exit_code: Optional[int] = None, stderr: str = ""
) -> Report:
    """A Report from the JSON text (or the parsed document) `condlint lint --format json` writes.

    Raises ReportFormatError when it is not such a report. Fields the schema adds later are kept in `raw`.
    """
    if isinstance(doc, (str, bytes)):
        try:
            doc = json.loads(doc)
        except ValueError as e:
            raise ReportFormatError(f"not JSON: {e}") from None
    tool = _require(doc, "tool", dict, "report")
    if tool.get("name") != "condlint":
        raise ReportFormatError("report.tool.name: not condlint")
    files = []
    for i, f in enumerate(_require(doc, "files", list, "report")):
        where = f"report.files[{i}]"
        findings = tuple(
            _finding(x, f"{where}.findings[{k}]") for k, x in enumerate(_require(f, "findings", list, where))
        )
        files.append(
            FileResult(
                path=_require(f, "path", str, where),
                format=_require(f, "format", str, where),
                findings=findings,
                error=_optional(f, "error", str, where),
            )
        )
    summary = _require(doc, "summary", dict, "report")
    counts = {k: _require(summary, k, int, "report.summary") for k in ("files", "errors", "warnings", "notes")}
    return Report(
        version=_require(tool, "version", str, "report.tool"),
        files=tuple(files),
        summary=counts,
        exit_code=exit_code,
        stderr=stderr,
        raw=doc,
    )
