"""Lint's text report kept beside its kept findings: their lines, sorted and shown as ``rawko-tui lint`` writes them.

The findings that depend on the memory files alone (``keptstore``) are most
of a report (17,000 lines at 10,000 memories). Kept as the text ``lint``
writes, a run on the very same readings writes that text as it is, the few
findings made afresh (``linter.moment_findings``, the person's settings, a
date still to come) each put in its place, rather than making every finding
again, sorting them and showing each one.

A place is the one ``lint_store``'s stable sort gives: a finding's sort key,
then its group in the order ``lint_store`` lists them (each file's, the
store-wide ones, those made afresh, each profile's, the person's), then its
place in its group. A report with a line of ASCII that is not printable as
it is (a file name with a tab) is not kept: ``lint`` then shows every line
by ``inline`` (``cli.lint``).
"""

from __future__ import annotations

import marshal
from bisect import bisect_left

from ..disk import cache
from ..store.reading import Store
from ..text.safetext import inline
from .findings import ERROR, WARNING, Finding, order_key
from .keptstore import KeptStoreFindings

_FORMAT = 1
OWN, TOGETHER, MOMENT, PROFILES, PERSON = range(5)  # the groups, in lint_store's order


class KeptReport:
    """The kept report of this store's very readings under ``arbiter`` (``report``), or a place to keep it (``keep``)."""

    def __init__(self, store: Store, arbiter: str | None):
        self.store = store
        self.findings = KeptStoreFindings(store, arbiter)
        self.missing = False  # set by ``report``: no report is kept for these readings (``keep`` then makes it)

    def report(self, now_ms: float | None, person) -> tuple[bytes, int, int, int] | None:
        """(the findings' lines, joined, as UTF-8; how many findings; errors; warnings), or None: nothing kept
        (``missing``), or a line not shown as it is."""
        if self.findings.key is None:
            return None
        found = cache.read_kept(self._path(), lambda handle: self._read(handle, now_ms, person))
        if found is None:
            self.missing = True
        return found or None

    def _read(self, handle, now_ms: float | None, person):
        from .linter import moment_findings, person_findings

        try:
            head = marshal.load(handle)
            if not isinstance(head, dict) or head.get("key") != self.findings.key or head.get("format") != _FORMAT:
                return None
            if not head["plain"]:
                return False  # kept, and shown line by line: lint_store's findings are
            text = handle.read(head["size"])  # as bytes, written as they are: megabytes made into text and back cost more
            if len(text) != head["size"]:
                return None
            dates = marshal.load(handle)  # of each file's discoveredAt, apart: a run with no time reads no more of them
            extra = []
            coming = now_ms is not None and any(date_ms > now_ms for date_ms in dates)
            if coming:
                for date_ms, key, plain in marshal.loads(handle.read(head["futures"])):
                    if date_ms > now_ms:
                        finding = Finding(*plain)
                        line = _line(finding)
                        if line is None:
                            return False
                        extra.append((key, line, finding.severity))
            for group, made in ((MOMENT, moment_findings(self.store)), (PERSON, person_findings(person))):
                for at, finding in enumerate(made):
                    line = _line(finding)
                    if line is None:
                        return False
                    extra.append((_key(finding.path, finding.severity, finding.line, group, at), line, finding.severity))
            count, errors, warnings = head["count"] + len(extra), head["errors"], head["warnings"]
            if extra:
                extra.sort()
                errors += sum(1 for _, _, severity in extra if severity == ERROR)
                warnings += sum(1 for _, _, severity in extra if severity == WARNING)
                if not coming:
                    handle.seek(head["futures"], 1)  # the places are kept after the dates' findings
                text = _placed(text, marshal.load(handle), extra)
            return text, count, errors, warnings
        except (KeyError, TypeError, ValueError, IndexError, EOFError):
            return None  # a record of another shape counts as none (it is written again)

    def keep(self) -> None:
        """Make the report of the kept findings (``KeptStoreFindings``, kept by the ``lint_store`` before) and keep it."""
        parts = self.findings.plain()
        if parts is None:
            return
        own, futures, together, by_profile = parts
        placed = [(_key(p[0], p[1], p[4], OWN, 2 * at + 1), p) for at, p in enumerate(own)]  # a date to come goes before
        placed += [(_key(p[0], p[1], p[4], TOGETHER, at), p) for at, p in enumerate(together)]
        placed += [(_key(p[0], p[1], p[4], PROFILES, at), p) for at, p in enumerate(by_profile)]
        try:
            placed.sort()
        except TypeError:  # a line of another kind than a number: not kept
            return
        lines = [_line(Finding(*plain)) for _, plain in placed]
        coming = [(date_ms, _key(p[0], p[1], p[4], OWN, 2 * at), p) for at, date_ms, p in futures]
        plain = None not in lines
        try:
            text = "\n".join(lines).encode("utf-8") if plain else b""
            futures_data = marshal.dumps(coming, 4)
        except ValueError:  # a lone surrogate (inline shows none), a value marshal cannot keep: nothing is kept
            return
        head = {
            "key": self.findings.key,
            "size": len(text),
            "futures": len(futures_data),
            "format": _FORMAT,
            "plain": plain,
            "count": len(placed),
            "errors": sum(1 for _, p in placed if p[1] == ERROR),
            "warnings": sum(1 for _, p in placed if p[1] == WARNING),
        }
        try:
            data = [marshal.dumps(head, 4)]
            if plain:
                data += [
                    text,
                    marshal.dumps([date_ms for date_ms, _, _ in coming], 4),
                    futures_data,
                    marshal.dumps([key for key, _ in placed], 4),
                ]
        except ValueError:
            return
        cache.write_bytes_atomically(self._path(), data)

    def _path(self):
        return cache.companion_path(cache.cache_path(self.findings.root), "lintreport")


def _key(path: str, severity: str, line, group: int, at: int) -> tuple:
    """A finding's place: lint's order (``findings.order_key``), then its group and its place in the group."""
    return (*order_key(path, severity, line), group, at)


def _line(finding: Finding) -> str | None:
    """The finding's line as ``lint`` writes it (``inline_lines``), or None where it is shown otherwise: a line of
    ASCII that is not printable as it is."""
    line = finding.as_line()
    if line.isascii():
        return line if line.isprintable() else None
    return inline(line)


def _placed(text: bytes, keys: list[tuple], extra: list[tuple]) -> bytes:
    """The kept lines (``text``, their places ``keys``) with each extra (place, line, severity) put in its place."""
    lines = text.split(b"\n") if keys else []
    out: list[bytes] = []
    start = 0
    for key, line, _ in extra:
        at = bisect_left(keys, key, start)
        out.extend(lines[start:at])
        out.append(line.encode("utf-8"))
        start = at
    out.extend(lines[start:])
    return b"\n".join(out)
