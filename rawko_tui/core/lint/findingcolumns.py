"""A store's lint findings kept as columns, for as long as the app shows the store.

At 100,000 memories lint finds about 177,000 things: as objects (a ``Finding``
and a message string each) they held about 50 MB, scattered among everything
else, for as long as the store was shown. Here they are a few flat buffers
(the messages UTF-8 text in a few pieces, the rest small numbers), and a ``Finding`` is
made only for what is asked for: the memory shown, the rows on screen.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator

from .findings import Finding

_NO_LINE = -1  # a finding with no line (``None``)
_CHUNK = 4096  # findings whose messages are one piece of text (one text of all of them grew by copies: 25 MB twice)
_LINE_LIMIT = 1 << 62  # a line beyond what the column holds is kept aside, as it is


class FindingColumns:
    """Findings sorted by path (as ``lint_store`` gives them), in their order; each made again as a ``Finding`` where
    read. ``of_path`` finds one file's findings without reading the others."""

    def __init__(self, findings: Iterable[Finding] = ()):
        self._paths: list[str] = []  # each path once, in order (sorted)
        self._path_starts = array("q")  # where each path's findings begin
        self._texts: dict[str, int] = {}  # a severity or code -> its number
        self._text_of: list[str] = []
        self._severities = array("H")
        self._codes = array("H")
        self._lines = array("q")
        self._odd_lines: dict[int, object] = {}  # finding -> its line, where the column cannot hold it
        self._message_ends = array("q")  # where each message ends in its chunk's text
        self._messages: list[bytes] = []
        chunk: list[bytes] = []
        length = count = 0
        for finding in findings:
            path = finding.path
            if not self._paths or path != self._paths[-1]:
                if self._paths and not path > self._paths[-1]:
                    raise ValueError("findings are kept as columns in path order")
                self._paths.append(path)
                self._path_starts.append(count)
            self._severities.append(self._number(finding.severity))
            self._codes.append(self._number(finding.code))
            line = finding.line
            if line is None:
                self._lines.append(_NO_LINE)
            elif type(line) is int and 0 <= line < _LINE_LIMIT:
                self._lines.append(line)
            else:
                self._lines.append(_NO_LINE)
                self._odd_lines[count] = line
            message = finding.message.encode("utf-8", "surrogatepass")  # a lone surrogate comes back as it was
            chunk.append(message)
            length += len(message)
            self._message_ends.append(length)
            count += 1
            if count % _CHUNK == 0:
                self._messages.append(b"".join(chunk))
                chunk, length = [], 0
        if chunk:
            self._messages.append(b"".join(chunk))
        self._count = count

    def _number(self, text: str) -> int:
        number = self._texts.get(text)
        if number is None:
            number = self._texts[text] = len(self._text_of)
            self._text_of.append(text)
        return number

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Finding]:
        for at, path in enumerate(self._paths):
            end = self._path_starts[at + 1] if at + 1 < len(self._paths) else self._count
            for index in range(self._path_starts[at], end):
                yield self._finding(index, path)

    def of_path(self, path: str) -> list[Finding]:
        """The findings on ``path``, in their order."""
        at = bisect_left(self._paths, path)
        if at == len(self._paths) or self._paths[at] != path:
            return []
        end = self._path_starts[at + 1] if at + 1 < len(self._paths) else self._count
        return [self._finding(index, path) for index in range(self._path_starts[at], end)]

    def paths_with_code(self, code: str) -> set[str]:
        """The paths with at least one finding of ``code``."""
        return {self._path_of(index) for index in self._indexes_of({code})}

    def with_codes(self, codes: Iterable[str]) -> list[Finding]:
        """The findings whose code is one of ``codes``, in their order."""
        return [self._finding(index, self._path_of(index)) for index in self._indexes_of(set(codes))]

    def _indexes_of(self, codes: set[str]) -> list[int]:
        numbers = {self._texts[code] for code in codes if code in self._texts}
        return [index for index, number in enumerate(self._codes) if number in numbers] if numbers else []

    def _path_of(self, index: int) -> str:
        return self._paths[bisect_right(self._path_starts, index) - 1]

    def _finding(self, index: int, path: str) -> Finding:
        start = self._message_ends[index - 1] if index % _CHUNK else 0
        message = self._messages[index // _CHUNK][start : self._message_ends[index]].decode("utf-8", "surrogatepass")
        line = self._lines[index]
        line = self._odd_lines.get(index) if line == _NO_LINE else line
        return Finding(path, self._text_of[self._severities[index]], self._text_of[self._codes[index]], message, line)


def findings_on(findings: Iterable[Finding], path: str) -> list[Finding]:
    """The findings on ``path``: looked up in columns, picked out of any other list."""
    if isinstance(findings, FindingColumns):
        return findings.of_path(path)
    return [finding for finding in findings if finding.path == path]
