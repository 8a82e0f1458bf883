"""Every key binding of every screen, with its id (for remapping) and what it does."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...core.store.settings import shown_path
from ..widgets.rowtable import RowTable
from ..safe import cell


class HelpScreen(ModalScreen[None]):
    """Every key binding, with its id (for remapping) and what it does."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="help-close")]

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                Text.assemble(
                    ("Keys\n", "bold"),
                    "Remap any of them by id in your own settings file, ",
                    (shown_path(), "cyan"),
                    ", e.g. ",
                    ("keymap: {memories-sort: f5}", "cyan"),
                    " (a store's .rawko/rawko-tui.yaml cannot). Ctrl+P opens the command palette with every action.",
                )
            )
            table = RowTable(id="help-table", cursor_type="row")
            table.add_column("Key", width=8)
            table.add_column("Action", width=40)
            table.add_column("Where", width=34)
            table.add_column("Binding id", width=26)
            for key, description, where, binding_id in self.rows:
                table.add_row(cell(key, "bold"), cell(description), cell(where, "dim"), cell(binding_id, "dim"))
            yield table
        yield Footer()
