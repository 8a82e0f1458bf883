"""The arbiter profiles side by side: every memory whose fate differs for the current task, and why."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ...core.arbiters.compare import Comparison
from ..widgets.rowtable import RowTable
from ..safe import cell, literal


class CompareScreen(Screen[None]):
    """One row per memory whose fate differs between the profiles; a column per profile; the first rule that parts them."""

    BINDINGS = [Binding("escape,v,q", "app.pop_screen", "Back", id="compare-back")]

    def __init__(self, comparison: Comparison, active: str) -> None:
        super().__init__()
        self.comparison = comparison
        self.active = active

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="compare-header")
        table = RowTable(id="compare-table", cursor_type="row", zebra_stripes=True)
        table.add_column("Memory", key="memory", width=30)
        for name in self.comparison.previews:
            table.add_column(cell(name + (" (active)" if name == self.active else "")), key=name, width=24)  # a store names its profiles
        table.add_column("First difference", key="rule", width=90)
        yield table
        yield Static(id="compare-rule")
        yield Footer()

    def on_mount(self) -> None:
        comparison = self.comparison
        header = Text()
        header.append_text(literal(f"Task: {comparison.task or '(empty)'}", "bold", limit=300))
        header.append(f"   agent {comparison.agent}\n")
        for name, preview in comparison.previews.items():
            if preview.arbiter_failure is not None:
                header.append(f"{name}: ", "bold")
                header.append_text(literal(f"injects nothing ({preview.arbiter_failure.describe()})\n", "red", limit=300))
            else:
                header.append(f"{name}: ", "bold")
                header.append(f"{len(preview.injected)} injected, {len(preview.prompt):,} characters of prompt\n")
        if not comparison.differences:
            header.append("Every profile injects the same memories in the same order for this task.", "green")
        self.query_one("#compare-header", Static).update(header)
        table = self.query_one("#compare-table", DataTable)
        for difference in comparison.differences:
            cells = [cell(difference.path.removeprefix(".rawko/memories/"))]
            for decision in difference.decisions:
                style = "bold green" if decision.injected else "dim"
                cells.append(cell(decision.short(), style))
            cells.append(cell(difference.rule))
            table.add_row(*cells, key=difference.path)
        table.focus()
        self._show_rule(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_rule(event.cursor_row)

    def _show_rule(self, row: int) -> None:
        """The highlighted memory's decisions and rule in full (a table cell cuts them)."""
        if not 0 <= row < len(self.comparison.differences):
            self.query_one("#compare-rule", Static).update("")
            return
        difference = self.comparison.differences[row]
        text = Text()
        text.append_text(literal(f"{difference.path}  {difference.title or ''}\n", "bold", limit=300))
        for decision in difference.decisions:
            text.append(f"{decision.profile}: ", "bold")
            text.append_text(literal(decision.short() + "\n", limit=600))
        text.append("First difference: ", "bold")
        text.append_text(literal(difference.rule, limit=1200))
        self.query_one("#compare-rule", Static).update(text)
