"""A lint finding and one file's findings: plain values the rules make, ``keptstore`` keeps and every surface shows."""

from __future__ import annotations

from ..records import record
from ..text.safetext import clean_name

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}


def order_key(path: str, severity: str, line: int | None) -> tuple:
    """Lint's order: by path, then severity (errors first), then line (``linter.sort_key``; a kept report's places)."""
    return (path, SEVERITY_ORDER[severity], line or 0)


@record(frozen=True, slots=True)  # 177,000 of them at 100,000 memories: no dict each
class Finding:
    path: str
    severity: str
    code: str
    message: str
    line: int | None = None

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "severity": self.severity, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return self.as_line(clean_name(self.path))

    def as_line(self, path: str | None = None) -> str:
        """The finding on one line, its path as given (``str``: shown clean), else as it is."""
        where = path if path is not None else self.path
        where = f"{where}:{self.line}" if self.line else where
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


@record(frozen=True, slots=True)
class FileFindings:
    """One file's findings whatever the time, and the one that depends on it: a discoveredAt in the future."""

    findings: tuple[Finding, ...]
    future: tuple[int, float, Finding] | None = None  # (where it goes in ``findings``, the date in ms, the finding)
