"""Memories pane: every memory file, filterable and sortable, with status badges."""

from __future__ import annotations

import functools
import math

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input
from textual.worker import get_current_worker

from ....core.records import record
from ....core.arbiters.decision import IMPORTANCE_ORDER, Preview
from ....core.store.fold import status_of
from ....core.js.values import js_new_date, js_to_string
from ....core.lint.findingcolumns import FindingColumns
from ....core.lint.linter import Finding
from ....core.store.memoryfilter import FilterIndex
from ....core.store.reading import MemoryFile, Store
from ...keys import focus_now
from ..rowtable import RowTable
from ...messages import MemoryHighlighted
from ...safe import cell
from ...threads import deliver
from ...selection import FollowsSelection

MAX_LIST_ROWS = 500  # rows in the table; sorting and filtering cover every memory
SORTS = ("title", "importance", "age", "file", "score")
SORT_LABELS = {"file": "file name"}  # what the subtitle and the notification call a sort, when not its own name
COLUMNS = (("imp", "Imp"), ("title", "Title"), ("tags", "Tags"), ("age", "Age"), ("status", "Status"))
MIN_TITLE_WIDTH = 12
MAX_STATUS_WIDTH = 24  # badges past it are cut (a file with every badge)
MAX_IMPORTANCE_WIDTH = 10  # "critical" and the other levels fit; a made-up importance past it is cut
_IMPORTANCE_STYLE = {"critical": "bold red", "high": "yellow", "medium": "cyan", "low": "dim"}


@record
class Row:
    """What the table shows of one file. What only a sort, the filter or the screen needs is made when first asked for
    (at 100,000 memories, making every row's age and search text held the first ranking back by a second)."""

    memory: MemoryFile
    importance: str
    title: str
    store_findings: FindingColumns  # the whole store's: a row's own are read where its badges are made
    rewritten: bool = False  # the working copy rewrites committed bytes
    now_ms: float = math.nan
    position: int = 0  # in the store's file order

    @functools.cached_property
    def tags(self) -> str:
        tags = self.memory.attrs.get("tags")
        return ", ".join(js_to_string(t) for t in tags) if isinstance(tags, list) else ""

    @functools.cached_property
    def age_hours(self) -> float:
        attrs = self.memory.attrs
        date = js_new_date(attrs["discoveredAt"]) if "discoveredAt" in attrs else None
        return (self.now_ms - date.ms) / 3_600_000 if date is not None and date.valid else math.nan

    @functools.cached_property
    def haystack(self) -> str:
        """What the fuzzy filter searches."""
        when = self.memory.attrs.get("whenToUse")
        patterns = " ".join(js_to_string(p.get("pattern") if isinstance(p, dict) else p) for p in (when if isinstance(when, list) else [when]) if p is not None)
        return f"{self.title} {self.tags} {patterns} {self.memory.name}".lower()

    @property
    def findings(self) -> list[Finding]:
        return self.store_findings.of_path(self.memory.rel_path)

    @property
    def badges(self) -> Text:
        """Made for the rows on screen only (counting entries splits the file)."""
        return _badges(self.memory, self.findings, self.rewritten)


def _age(hours: float) -> str:
    if math.isnan(hours):
        return "?"
    if hours < 0:
        return "future"
    if hours < 48:
        return f"{hours:.0f}h"
    days = hours / 24
    return f"{days:.0f}d" if days < 365 else f"{days / 365:.1f}y"


def build_rows(store: Store, findings: FindingColumns, now_ms: float, rewritten: set[str] = frozenset()) -> list[Row]:
    """One row per memory file, in title order (the list's first sort: sorted here, off the UI thread); equal titles in file order."""
    rows = []
    for position, memory in enumerate(store.files):
        attrs = memory.attrs
        title = attrs.get("title") if isinstance(attrs.get("title"), str) else memory.name
        importance = js_to_string(attrs["importance"]) if "importance" in attrs else ""
        rows.append(Row(memory, importance, title, findings, memory.rel_path in rewritten, now_ms, position))
    rows.sort(key=lambda r: r.title.casefold())
    return rows


def _badges(memory: MemoryFile, findings: list[Finding], rewritten: bool = False) -> Text:
    badges = Text(no_wrap=True)
    if rewritten:
        badges.append("REWR ", "bold white on red")  # the append-only rule is broken in the working copy
    if memory.error is None and memory.spec is not None:
        if not status_of(memory).active:
            # a supersede entry retires the memory too: supersededBy says which of the two it is
            badges.append("sup " if memory.effective()[0].get("supersededBy") else "ret ", "bold magenta")
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    if memory.symlink:
        badges.append("link ", "magenta")
    elif memory.error is not None:
        badges.append("broken ", "bold red")
    elif not memory.top_level:
        badges.append("sub ", "magenta")
    if any(f.code == "prompt-injection" for f in findings):
        badges.append("INJ ", "bold white on red")
    if errors:
        badges.append(f"E{errors} ", "bold red")
    if warnings:
        badges.append(f"W{warnings} ", "yellow")
    if len(memory.entries) > 1:
        badges.append(f"+{len(memory.entries) - 1} ", "cyan")
    return badges


class MemoryList(FollowsSelection, Vertical):
    """The memory files of the store as a table, with a filter."""

    BORDER_TITLE = "1 Memories"
    BINDINGS = [
        # priority: acted on before the next key is routed (see RawkoApp.TYPED_KEY_ACTIONS); typed in the filter box
        Binding("s", "cycle_sort", "Sort", id="memories-sort", priority=True),
        Binding("slash", "focus_filter", "Filter", id="memories-filter", priority=True),
    ]

    class Highlighted(MemoryHighlighted):
        """The user moved to a memory file in the list."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[Row] = []
        self.passed_over = 0
        self.shown_rows: list[Row] = []
        self.sort = "title"
        self.scored_preview: Preview | None = None
        self._scores_of: Preview | None = None
        self._scores: dict[str, float] = {}
        self._filter_scores: dict[str, float] | None = None
        self._filter_index: tuple[list[Row], FilterIndex] | None = None  # the rows it indexes, and the index
        self._cells: list[tuple[Text, ...]] = []  # the shown rows' cells
        self._widths: dict[str, int] = {}  # the columns' widths now
        self._subtitle = ""  # the counts and sort; follow() adds whether the selection is listed

    def compose(self) -> ComposeResult:
        yield Input(placeholder="/ filter: title, tags, patterns, path", id="memory-filter")
        table = RowTable(id="memory-table", cursor_type="row", zebra_stripes=True)
        self._add_columns(table, self._column_widths(table))
        yield table

    def set_rows(self, rows: list[Row], passed_over: int = 0) -> None:
        """``rows`` in title order (``build_rows``). ``passed_over``: entries of memories/ that are not memory files (FIFOs, symlinked folders, ...); lint names them."""
        self.rows = rows
        self.passed_over = passed_over
        self._refresh_table()

    def set_scores(self, preview: Preview) -> None:
        self.scored_preview = preview
        if self.sort == "score":
            self._refresh_table()

    @property
    def scores(self) -> dict[str, float]:
        """Every loaded memory's score in the latest preview (built when sorting by score needs it)."""
        preview = self.scored_preview
        if preview is None:
            return {}
        if self._scores_of is not preview:
            self._scores_of, self._scores = preview, {c.path: c.score for c in preview.candidates if c.loaded}
        return self._scores

    def action_cycle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self._refresh_table()
        self.app.notify(f"Memories sorted by {SORT_LABELS.get(self.sort, self.sort)}", timeout=2)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("cycle_sort", "focus_filter") and isinstance(self.screen.focused, Input):
            return False  # in the filter box the key is a letter of the filter
        return True

    def action_focus_filter(self) -> None:
        focus_now(self.query_one("#memory-filter", Input))

    @on(Input.Changed, "#memory-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.run_filter(event.value)

    @on(Input.Submitted, "#memory-filter")
    def _filter_submitted(self) -> None:
        focus_now(self.query_one(DataTable))

    @work(thread=True, exit_on_error=False, exclusive=True, group="memory-filter", description="filter memories")
    def run_filter(self, query: str) -> None:
        """Keep the rows that find every word of the query (``core.memoryfilter``), off the UI thread."""
        rows = self.rows
        if not query.strip():
            result = None
        else:
            if self._filter_index is None or self._filter_index[0] is not rows:
                self._filter_index = (rows, FilterIndex([r.haystack for r in rows]))
            result = {rows[index].memory.rel_path: score for index, score in self._filter_index[1].scores(query).items()}
        if not get_current_worker().is_cancelled:
            deliver(self, self._apply_filter, result)

    def _apply_filter(self, scores: dict[str, float] | None) -> None:
        self._filter_scores = scores
        self._refresh_table()
        # what the list highlights is the selection: a filter that hides the selected memory selects its first match
        if self.shown_rows and self.selected_path not in self._listed_paths():
            self.select_path(self.shown_rows[0].memory.rel_path)

    def _sorted(self, rows: list[Row]) -> list[Row]:
        """``rows`` (in title order) in the current sort; filtered, in title order the best matches come first."""
        if self._filter_scores is not None:
            rows = [r for r in rows if r.memory.rel_path in self._filter_scores]
            if self.sort == "title":
                return sorted(rows, key=lambda r: -self._filter_scores[r.memory.rel_path])
        if self.sort == "importance":
            return sorted(rows, key=lambda r: -IMPORTANCE_ORDER.get(r.importance, -1))
        if self.sort == "age":
            return sorted(rows, key=lambda r: math.inf if math.isnan(r.age_hours) else r.age_hours)
        if self.sort == "file":
            return sorted(rows, key=lambda r: r.position)
        if self.sort == "score":
            return sorted(rows, key=lambda r: -self.scores.get(r.memory.rel_path, -1))
        return list(rows)

    def _refresh_table(self) -> None:
        ordered = self._sorted(self.rows)
        # a table of thousands of rows costs the UI thread seconds; the filter finds the rest
        self.shown_rows = ordered[:MAX_LIST_ROWS]
        self._cells = [
            (
                cell(r.importance or "—", _IMPORTANCE_STYLE.get(r.importance, "red")),
                cell(r.title),
                cell(r.tags, "dim"),
                cell(_age(r.age_hours)),
                r.badges,
            )
            for r in self.shown_rows
        ]
        if len(ordered) > len(self.shown_rows):
            shown = f"first {len(self.shown_rows):,} of {len(ordered):,}{' matches' if self._filter_scores is not None else ''} (/ to filter)"
        else:
            shown = f"{len(self.shown_rows)} of {len(self.rows)}" if self._filter_scores is not None else f"{len(self.rows)}"
        skipped = f" · {self.passed_over} passed over (rawko-tui lint)" if self.passed_over else ""
        best_first = " (best match first)" if self._filter_scores is not None and self.sort == "title" else ""
        self._subtitle = f"{shown}{skipped} · sort: {SORT_LABELS.get(self.sort, self.sort)}{best_first}"
        self._fill_table()

    def _fill_table(self) -> None:
        """The shown rows, in columns as wide as the pane allows: the title takes what the others leave."""
        table = self.query_one(DataTable)
        widths = self._column_widths(table)
        self.hide_cursor_for_rebuild()
        if widths != self._widths:
            table.clear(columns=True)
            self._add_columns(table, widths)
        else:
            table.clear()
        table.add_rows(self._cells)
        self.follow(self.selected_path)

    def _add_columns(self, table: DataTable, widths: dict[str, int]) -> None:
        for key, label in COLUMNS:
            table.add_column(label, key=key, width=widths[key])
        self._widths = widths

    def on_resize(self) -> None:
        if self._cells and self._column_widths(self.query_one(DataTable)) != self._widths:
            self._fill_table()

    def _column_widths(self, table: DataTable) -> dict[str, int]:
        """Each column's width: importance, age and badges as wide as their widest value (the levels and ages are never cut); the title
        and the tags share the rest, the title taking what is left."""
        natural = {key: len(label) for key, label in COLUMNS}
        for cells in self._cells:
            for (key, _), shown in zip(COLUMNS, cells):
                natural[key] = max(natural[key], shown.cell_len)
        natural["status"] = min(natural["status"], MAX_STATUS_WIDTH)
        natural["imp"] = min(natural["imp"], MAX_IMPORTANCE_WIDTH)
        available = table.size.width
        if not available:  # not laid out yet
            available = 64  # a first guess: the first resize fits them
        if len(self._cells) + 1 > table.size.height:  # the header and the rows: a vertical scrollbar takes its width
            available -= table.styles.scrollbar_size_vertical
        padding = 2 * table.cell_padding
        rest = available - sum(natural[key] + padding for key in ("imp", "age", "status")) - 2 * padding
        # the tags get what the titles do not need, and at least a quarter when neither fits
        tags = min(natural["tags"], max(len("Tags"), rest // 4, rest - natural["title"]))
        return {"imp": natural["imp"], "title": max(MIN_TITLE_WIDTH, rest - tags), "tags": tags, "age": natural["age"], "status": natural["status"]}

    def first_path(self) -> str | None:
        return self.shown_rows[0].memory.rel_path if self.shown_rows else None

    def _selection_table(self) -> DataTable:
        return self.query_one("#memory-table", DataTable)

    def _listed_paths(self) -> list[str]:
        return [row.memory.rel_path for row in self.shown_rows]

    def _announce(self, path: str) -> None:
        self.post_message(self.Highlighted(self, path))

    def follow(self, path: str | None, move: bool = True) -> bool:
        """As ``FollowsSelection.follow``; the subtitle says when the selected memory is not in the list."""
        listed = super().follow(path, move)
        hidden = path is not None and not listed and bool(self.rows)
        self.border_subtitle = self._subtitle + (" · selected memory not in this list" if hidden else "")
        return listed

    def select_path(self, path: str) -> None:
        """Move to a memory and select it."""
        self.follow(path)
        self.post_message(self.Highlighted(self, path))
