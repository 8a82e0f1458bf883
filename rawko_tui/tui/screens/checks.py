"""Saved tasks in the app: their results, and who gets which memory."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from ...core.curation.checks import CheckResult, Matrix, load_checks, matrix, run_checks
from ...core.store.reading import Store
from ..widgets.rowtable import RowTable
from ..safe import cell, literal
from ..threads import deliver


class ChecksScreen(Screen[None]):
    """Saved tasks (.rawko/checks.yaml) run against the store, and the agent x memory matrix."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back", id="checks-back")]

    def __init__(self, store: Store, now_ms: float, recent_tasks: list[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.store = store
        self.now_ms = now_ms
        self.recent_tasks = recent_tasks or []

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="checks-tabs"):
            with TabPane("Checks", id="tab-checks"):
                table = RowTable(id="check-results", cursor_type="row", zebra_stripes=True)
                table.add_column("", key="mark", width=4)
                table.add_column("Saved task", key="task", width=48)
                table.add_column("Agent", key="agent", width=10)
                table.add_column("Injected / what failed", key="detail", width=80)
                yield table
                yield Static(id="checks-summary")
            with TabPane("Matrix", id="tab-matrix"):
                yield RowTable(id="matrix-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="matrix-summary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#checks-summary", Static).update(Text("Running the saved tasks…", "dim"))
        self.run_all()

    @work(thread=True, exit_on_error=False, exclusive=True, group="checks", description="run the saved tasks")
    def run_all(self) -> None:
        tasks, errors = load_checks(self.store.root)
        results = run_checks(self.store, tasks)
        # the matrix covers the saved tasks and the ones previewed recently
        grid = matrix(self.store, list(dict.fromkeys([(t.task, t.agent) for t in tasks] + self.recent_tasks)), self.now_ms)
        if not get_current_worker().is_cancelled:
            deliver(self, self._show, results, grid, [str(e) for e in errors])

    def _show(self, results: list[CheckResult], grid: Matrix, errors: list[str]) -> None:
        table = self.query_one("#check-results", DataTable)
        table.clear()
        marks = {"pass": ("ok", "bold green"), "fail": ("FAIL", "bold red"), "undecided": ("?", "bold yellow")}
        for result in results:
            if result.undecided:  # neither passed nor failed: a regex rawko-tui could not decide
                detail = "undecided: " + "; ".join(result.undecided)
            else:
                detail = "; ".join(result.failures) if result.failures else ", ".join(result.injected) or "(nothing injected)"
            mark, style = marks[result.status]
            table.add_row(cell(mark, style), cell(result.saved.label), cell(result.saved.agent), cell(detail, "" if result.passed else style.removeprefix("bold "), limit=400))
        failed = sum(1 for r in results if r.status == "fail")
        undecided = sum(1 for r in results if r.status == "undecided")
        summary = Text(
            f"{len(results) - failed - undecided} passed, {failed} failed" + (f", {undecided} undecided" if undecided else ""),
            "bold red" if failed else "bold yellow" if undecided else "bold green",
        )
        if not results:
            summary = Text("No saved tasks yet: `t` in the preview saves the current task with what it injects now.", "dim")
        for error in errors:
            summary.append("\n")
            summary.append_text(literal(error, "red", limit=300))
        self.query_one("#checks-summary", Static).update(summary)

        grid_table = self.query_one("#matrix-table", DataTable)
        grid_table.clear(columns=True)
        grid_table.add_column("Memory", key="memory", width=44)
        for agent in grid.agents:
            grid_table.add_column(cell(agent, limit=12), key=f"agent-{agent}", width=12)  # a label string would be read as markup
        dead, broad = set(grid.dead), set(grid.over_broad())
        for memory in grid.memories:
            style = "dim" if memory in dead else "yellow" if memory in broad else ""
            grid_table.add_row(cell(memory, style), *(cell(str(grid.counts[memory][a]) if grid.counts[memory][a] else "·", style) for a in grid.agents))
        notes = Text()
        notes.append("Dead (no saved task injects them): ", "bold")
        notes.append_text(literal(", ".join(grid.dead) or "none", limit=1000))
        notes.append("\nOver-broad (80% of the tasks or more): ", "bold")
        notes.append_text(literal(", ".join(grid.over_broad()) or "none", limit=1000))
        notes.append("\nTasks that get nothing: ", "bold")
        notes.append_text(literal(", ".join(repr(t) for t, _ in grid.empty_tasks) or "none", limit=1000))
        if grid.failing_tasks:
            notes.append("\nTasks where the arbiter throws (agents get nothing): ", "bold red")
            notes.append_text(literal("; ".join(f"{t!r}: {o.describe()}" for t, _, o in grid.failing_tasks), "red", limit=1000))
        self.query_one("#matrix-summary", Static).update(notes)
        table.focus()
