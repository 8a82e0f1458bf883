"""What to do without a store, or with one that holds no memories yet."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..safe import literal


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
