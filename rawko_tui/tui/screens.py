"""Screens other than the main one: help, and what to do without a store."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Static, TextArea

from ..core.store.settings import shown_path
from .widgets.rowtable import RowTable
from .safe import cell, literal


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


class NoStoreScreen(Screen[None]):
    """Shown instead of a traceback when there is no store, or it holds no memories."""

    BINDINGS = [
        Binding("q,escape", "leave", "Quit", id="no-store-quit"),
        Binding("n", "first_memory", "Write the first memory", id="no-store-new"),
    ]

    def __init__(self, message: str, can_create: bool = False) -> None:
        super().__init__()
        self.message = message
        self.can_create = can_create  # a store without memories: the first one can be written from here

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return action != "first_memory" or self.can_create

    def action_leave(self) -> None:
        self.app.exit()  # its own action: the app's q is the main screen's, refused on the others

    def action_first_memory(self) -> None:
        self.app.pop_screen()
        self.app.action_new_memory()

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("No memories to show\n\n", "bold")
        text.append_text(literal(self.message))
        text.append(
            "\n\nrawko-tui reads .rawko/memories/*.md under the folder you give it (or the nearest folder above "
            "the current one that has .rawko/). Agents write memories there as Markdown files with YAML "
            "frontmatter; see the README for the format.\n\n"
        )
        if self.can_create:
            text.append("Press n to write the first memory, or q to quit.", "bold")
        else:
            text.append("Start a store with ", "")
            text.append("rawko-tui init PATH", "bold")
            text.append(", then open it with ")
            text.append("rawko-tui PATH", "bold")
            text.append(". Press q to quit.")
        yield Static(text, id="no-store")
        yield Footer()


class DiffScreen(ModalScreen[None]):
    """One commit's patch, shown literally."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close", id="diff-close")]

    def __init__(self, title: str, patch: str) -> None:
        super().__init__()
        self.title_text = title
        self.patch = patch

    def compose(self) -> ComposeResult:
        from .safe import clean

        with Vertical(id="diff-box"):
            yield Static(literal(self.title_text, "bold", limit=300))
            yield TextArea(clean(self.patch), read_only=True, show_line_numbers=True, id="diff-text")
        yield Footer()
