"""One commit's patch, shown literally."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from ..safe import literal


class DiffScreen(ModalScreen[None]):
    """One commit's patch, shown literally."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close", id="diff-close")]

    def __init__(self, title: str, patch: str) -> None:
        super().__init__()
        self.title_text = title
        self.patch = patch

    def compose(self) -> ComposeResult:
        from ..safe import clean

        with Vertical(id="diff-box"):
            yield Static(literal(self.title_text, "bold", limit=300))
            yield TextArea(clean(self.patch), read_only=True, show_line_numbers=True, id="diff-text")
        yield Footer()
