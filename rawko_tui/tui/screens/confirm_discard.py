"""The question asked before text the person typed is thrown away."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .dialog_text import keys_named


class ConfirmDiscard(ModalScreen[bool]):
    """Asked when Esc would throw away text the person typed."""

    BINDINGS = [
        Binding("y", "discard", "Yes, discard", id="discard-yes"),
        Binding("n,escape", "keep", "No, keep editing", id="discard-no"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="discard-box"):
            yield Static(Text.assemble(("Discard what you typed?", "bold"), "\n\n", *keys_named(self.app, ConfirmDiscard, "discard-yes"), " discards it · ", *keys_named(self.app, ConfirmDiscard, "discard-no"), " keeps editing"))
        yield Footer()

    def action_discard(self) -> None:
        self.dismiss(True)

    def action_keep(self) -> None:
        self.dismiss(False)
