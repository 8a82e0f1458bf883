"""One small tree type for every decision, shared by the CLI and the app.

Modelled on Lucene's ``Explanation``: a value, a description and details.
For a memory the root's value is the score the arbiter ranked it by; score
components are details whose values add up to it; gates (pattern match,
importance threshold, top-N cut, loading) are details of value 0 whose
``match`` says whether the memory passed.  ``undecided``: rawko-tui could not
decide it (a regex it could not run to the end); ``match`` is then False and
the marker is ``?``.  ``tried`` is False for a test the arbiter never ran (a
pattern after the one that matched): neither passed nor failed, marked ``–``.
"""

from __future__ import annotations

from ..records import field, record
from ..text.safetext import inline

COMPONENT = "component"
GATE = "gate"
PATTERN = "pattern"
INFO = "info"
SCORE = "score"

MATCHED_MARK, FAILED_MARK, NOT_TRIED_MARK, UNDECIDED_MARK = "✓", "✗", "–", "?"


@record(frozen=True)
class Explanation:
    value: float
    description: str
    details: tuple["Explanation", ...] = ()
    match: bool = True
    kind: str = INFO
    data: dict = field(default_factory=dict, compare=False)
    undecided: bool = False
    tried: bool = True

    @property
    def marker(self) -> str:
        """The mark before a gate or pattern: matched, failed, not tried, undecided (scores and notes have none)."""
        if self.undecided:
            return UNDECIDED_MARK
        if not self.tried:
            return NOT_TRIED_MARK
        return MATCHED_MARK if self.match else FAILED_MARK

    def component_sum(self) -> float:
        return sum(d.value for d in self.details if d.kind == COMPONENT)

    def find(self, kind: str) -> list["Explanation"]:
        found = [self] if self.kind == kind else []
        for detail in self.details:
            found.extend(detail.find(kind))
        return found

    def to_dict(self) -> dict:
        out = {"value": self.value, "match": self.match, "kind": self.kind, "description": self.description}
        if self.undecided:
            out["undecided"] = True
        if not self.tried:
            out["tried"] = False
        if self.data:
            out["data"] = self.data
        if self.details:
            out["details"] = [d.to_dict() for d in self.details]
        return out

    def render(self, indent: int = 0) -> str:
        """Indented text, one node a line: ``25  importance: high (+25)``."""
        lines: list[str] = []
        self._render(lines, indent)
        return "\n".join(lines)

    def _render(self, lines: list[str], depth: int) -> None:
        if self.kind in (COMPONENT, SCORE):
            marker = _format_value(self.value)
        elif self.kind == INFO and not self.undecided:
            marker = "·"
        else:
            marker = self.marker
        # one node a line: a line break in a description (a title, a pattern) is shown, never a new line
        lines.append(f"{'  ' * depth}{marker:>4}  {inline(self.description)}")
        for detail in self.details:
            detail._render(lines, depth + 1)


def _format_value(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
